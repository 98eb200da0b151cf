import { Body, HttpCode, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { CreateProposalDto, EditProposalDto, GetProposalQuery, ListProposalsQuery, OptionalReviewDto, RequiredReviewDto } from './dto/proposal.dto.js';
import { ProposalApprovalService } from './proposal-approval.service.js';
import { ProposalRevocationService } from './proposal-revocation.service.js';
import { ProposalService } from './proposal.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ApprovalResultDto, CreatedProposalDto, ProposalPageDto, ProposalRecordDto, ProposalValidationDto, RevocationResultDto } from './dto/proposal-record.dto.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';

const PROJECT = new UuidParamPipe('Project');
const PROPOSAL = new UuidParamPipe('Proposal');

/**
 * Proposals for the web client (docs/platform.md §9): reads, creation, REST-only edit and delete, validation and the
 * review transitions. The user holds proposal:admin, so it may approve, close, reject and revoke any proposal.
 */
@ApiTags('proposals')
@ApiCookieAuth('session')
@ApiController('api')
export class ProposalController {
  constructor(
    private readonly proposals: ProposalService,
    private readonly approval: ProposalApprovalService,
    private readonly revocation: ProposalRevocationService,
  ) {}

  @Get('projects/:uuid/proposals')
  @ApiRoute({
    answer: ProposalPageDto,
    summary: 'List the proposals of a project, newest first (svc_get_proposals)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  list(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Query() q: ListProposalsQuery) {
    return this.proposals.list(actor, { projectUuid, status: q.status, ...restPaging(q) });
  }

  @Post('projects/:uuid/proposals')
  @ApiRoute({
    answer: CreatedProposalDto,
    summary: 'Create a draft proposal over ideas assigned to you or documents of the project (svc_pm_create_proposal)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN'],
    created: true,
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  create(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Body() body: CreateProposalDto) {
    return this.proposals.create(actor, { ...body, projectUuid });
  }

  @Get('proposals/:uuid')
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Get a proposal with the chosen section (svc_get_proposal)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  get(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Query() q: GetProposalQuery) {
    return this.proposals.get(actor, { proposalUuid, section: q.section });
  }

  @Patch('proposals/:uuid')
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Edit the title or description of a draft proposal', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  edit(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: EditProposalDto) {
    return this.proposals.edit(actor, { ...body, proposalUuid });
  }

  @Delete('proposals/:uuid')
  @ApiRoute({
    answer: DeletedDto,
    summary: 'Delete a draft or closed proposal; its tasks and documents stay, unlinked',
    errors: ['NOT_FOUND', 'INVALID_STATE'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  delete(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string) {
    return this.proposals.delete(actor, { proposalUuid });
  }

  @Get('proposals/:uuid/validation')
  @ApiRoute({ answer: ProposalValidationDto, summary: 'Run the submit-time checks without submitting (svc_pm_validate_proposal)', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  validate(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string) {
    return this.proposals.validate(actor, { proposalUuid });
  }

  @Post('proposals/:uuid/submit')
  @HttpCode(200)
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Submit a valid draft for review (draft -> pending)', errors: ['NOT_FOUND', 'INVALID_STATE', 'PROPOSAL_INVALID'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  submit(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string) {
    return this.proposals.submit(actor, { proposalUuid });
  }

  @Post('proposals/:uuid/approve')
  @HttpCode(200)
  @ApiRoute({
    answer: ApprovalResultDto,
    summary: 'Approve and materialise every draft as a document or task (pending -> approved)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  approve(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: OptionalReviewDto) {
    return this.approval.approve(actor, { proposalUuid, reviewNote: body.reviewNote });
  }

  @Post('proposals/:uuid/reject')
  @HttpCode(200)
  @ApiRoute({
    answer: ProposalRecordDto,
    summary: 'Send a pending proposal back to its author with a note (pending -> draft)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  reject(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: RequiredReviewDto) {
    return this.proposals.reject(actor, { proposalUuid, reviewNote: body.reviewNote });
  }

  @Post('proposals/:uuid/close')
  @HttpCode(200)
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Close a pending proposal for good, with a note (pending -> closed)', errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  close(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: RequiredReviewDto) {
    return this.proposals.close(actor, { proposalUuid, reviewNote: body.reviewNote });
  }

  @Post('proposals/:uuid/revoke')
  @HttpCode(200)
  @ApiRoute({
    answer: RevocationResultDto,
    summary: "Revoke an approval: close the proposal's tasks and delete its documents (approved -> draft)",
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  revoke(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: OptionalReviewDto) {
    return this.revocation.revoke(actor, { proposalUuid, reviewNote: body.reviewNote });
  }
}
