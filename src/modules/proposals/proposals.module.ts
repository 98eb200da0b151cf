import { Module } from '@nestjs/common';
import { ProposalApprovalService } from './proposal-approval.service.js';
import { ProposalRevocationService } from './proposal-revocation.service.js';
import { ProposalService } from './proposal.service.js';

const SERVICES = [ProposalService, ProposalApprovalService, ProposalRevocationService];

@Module({ providers: SERVICES, exports: SERVICES })
export class ProposalsModule {}
