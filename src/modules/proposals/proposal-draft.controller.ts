import { Body, Delete, Param, Patch, Post } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import type { ErrorCode } from '../../shared/errors/app-error.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { DocumentDraftDto, TaskDraftDto, UpdateDocumentDraftDto, UpdateTaskDraftDto } from './dto/proposal-draft.dto.js';
import { ProposalService } from './proposal.service.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { DraftAddedDto, ProposalRecordDto } from './dto/proposal-record.dto.js';

const PROPOSAL = new UuidParamPipe('Proposal');
const DRAFT_ERRORS: ErrorCode[] = ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE'];
const DRAFT_PARAM = 'uuid of a draft of this proposal (404 when unknown, except on removal)';

/**
 * The document and task drafts of a draft proposal (svc_pm_*_draft). Every route answers the proposal record:
 * removing a draft edits the proposal, it deletes no record of its own.
 */
@ApiTags('proposals')
@ApiCookieAuth('session')
@ApiController('api/proposals/:uuid')
@ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
export class ProposalDraftController {
  constructor(private readonly proposals: ProposalService) {}

  @Post('document-drafts')
  @ApiRoute({ answer: DraftAddedDto, summary: 'Add a document draft (at most 20)', errors: DRAFT_ERRORS, created: true })
  addDocumentDraft(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: DocumentDraftDto) {
    return this.proposals.addDocumentDraft(actor, { ...body, proposalUuid });
  }

  @Patch('document-drafts/:draftUuid')
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Update a document draft', errors: DRAFT_ERRORS })
  @ApiParam({ name: 'draftUuid', format: 'uuid', description: `Document draft ${DRAFT_PARAM}` })
  updateDocumentDraft(
    @CurrentActor() actor: Actor,
    @Param('uuid', PROPOSAL) proposalUuid: string,
    @Param('draftUuid', new UuidParamPipe('Document draft')) draftUuid: string,
    @Body() body: UpdateDocumentDraftDto,
  ) {
    return this.proposals.updateDocumentDraft(actor, { ...body, proposalUuid, draftUuid });
  }

  @Delete('document-drafts/:draftUuid')
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Remove a document draft; an absent draft leaves the proposal unchanged', errors: ['NOT_FOUND', 'INVALID_STATE'] })
  @ApiParam({ name: 'draftUuid', format: 'uuid', description: `Document draft ${DRAFT_PARAM}` })
  removeDocumentDraft(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Param('draftUuid', new UuidParamPipe('Document draft')) draftUuid: string) {
    return this.proposals.removeDocumentDraft(actor, { proposalUuid, draftUuid });
  }

  @Post('task-drafts')
  @ApiRoute({ answer: DraftAddedDto, summary: 'Add a task draft (at most 100)', errors: DRAFT_ERRORS, created: true })
  addTaskDraft(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Body() body: TaskDraftDto) {
    return this.proposals.addTaskDraft(actor, { ...body, proposalUuid });
  }

  @Patch('task-drafts/:draftUuid')
  @ApiRoute({ answer: ProposalRecordDto, summary: 'Update a task draft; criteria and dependencies given replace the old ones', errors: DRAFT_ERRORS })
  @ApiParam({ name: 'draftUuid', format: 'uuid', description: `Task draft ${DRAFT_PARAM}` })
  updateTaskDraft(
    @CurrentActor() actor: Actor,
    @Param('uuid', PROPOSAL) proposalUuid: string,
    @Param('draftUuid', new UuidParamPipe('Task draft')) draftUuid: string,
    @Body() body: UpdateTaskDraftDto,
  ) {
    return this.proposals.updateTaskDraft(actor, { ...body, proposalUuid, draftUuid });
  }

  @Delete('task-drafts/:draftUuid')
  @ApiRoute({
    answer: ProposalRecordDto,
    summary: "Remove a task draft and drop it from its siblings' dependencies; an absent draft leaves the proposal unchanged",
    errors: ['NOT_FOUND', 'INVALID_STATE'],
  })
  @ApiParam({ name: 'draftUuid', format: 'uuid', description: `Task draft ${DRAFT_PARAM}` })
  removeTaskDraft(@CurrentActor() actor: Actor, @Param('uuid', PROPOSAL) proposalUuid: string, @Param('draftUuid', new UuidParamPipe('Task draft')) draftUuid: string) {
    return this.proposals.removeTaskDraft(actor, { proposalUuid, draftUuid });
  }
}
