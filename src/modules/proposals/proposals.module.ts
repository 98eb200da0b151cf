import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { ProposalApprovalService } from './proposal-approval.service.js';
import { ProposalDraftController } from './proposal-draft.controller.js';
import { ProposalRevocationService } from './proposal-revocation.service.js';
import { ProposalController } from './proposal.controller.js';
import { ProposalRepository } from './proposal.repository.js';
import { ProposalService } from './proposal.service.js';
import { ProposalTools } from './proposal.tools.js';

const SERVICES = [ProposalService, ProposalApprovalService, ProposalRevocationService];

@Module({ controllers: [ProposalController, ProposalDraftController], providers: [repositoryProvider(ProposalRepository), ...SERVICES, ProposalTools], exports: SERVICES })
export class ProposalsModule {}
