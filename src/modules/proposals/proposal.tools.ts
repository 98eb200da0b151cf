import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { ProposalPageDto, ProposalRecordDto, ProposalValidationDto } from './dto/proposal-record.dto.js';
import {
  DocumentDraftArgsDto,
  DraftArgsDto,
  TaskDraftArgsDto,
  UpdateDocumentDraftArgsDto,
  UpdateTaskDraftArgsDto,
} from './dto/proposal-draft.dto.js';
import {
  CreateProposalArgsDto,
  GetProposalArgsDto,
  ListProposalsArgsDto,
  OptionalReviewArgsDto,
  ProposalRefDto,
  RequiredReviewArgsDto,
} from './dto/proposal.dto.js';
import { ProposalApprovalService } from './proposal-approval.service.js';
import { ProposalRevocationService } from './proposal-revocation.service.js';
import { ProposalService } from './proposal.service.js';

/** MCP tools of docs/tool-conventions.md §5.1 (proposal reads), §5.6 (proposal:write) and §5.8 (proposal:admin). */
@Injectable()
export class ProposalTools {
  constructor(
    private readonly proposals: ProposalService,
    private readonly approval: ProposalApprovalService,
    private readonly revocation: ProposalRevocationService,
  ) {}

  @Tool({
    name: 'svc_get_proposals',
    title: 'List proposals',
    hint: 'R',
    description: "Lists a project's proposals, optionally by status. Open one with svc_get_proposal.",
    input: ListProposalsArgsDto,
    output: ProposalPageDto,
  })
  getProposals(args: ListProposalsArgsDto, ctx: ToolContext) {
    return this.proposals.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_proposal',
    title: 'Get proposal',
    hint: 'R',
    description:
      'Returns one proposal; section chooses draft indexes (basic), documents, tasks or full. Check it with svc_pm_validate_proposal before svc_pm_submit_proposal.',
    input: GetProposalArgsDto,
    output: ProposalRecordDto,
  })
  getProposal(args: GetProposalArgsDto, ctx: ToolContext) {
    return this.proposals.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_create_proposal',
    permission: 'proposal:write',
    title: 'Create proposal',
    hint: 'W',
    description:
      'Creates an empty proposal from resolved deliverable ideas or documents (-> draft). Fill it with svc_pm_add_document_draft and svc_pm_add_task_draft.',
    input: CreateProposalArgsDto,
  })
  createProposal(args: CreateProposalArgsDto, ctx: ToolContext) {
    return this.proposals.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_validate_proposal',
    permission: 'proposal:write',
    title: 'Validate proposal',
    hint: 'R',
    description: 'Checks a proposal against the submission rules and lists errors, warnings and infos. Fix the errors, then call svc_pm_submit_proposal.',
    input: ProposalRefDto,
    output: ProposalValidationDto,
  })
  validateProposal(args: ProposalRefDto, ctx: ToolContext) {
    return this.proposals.validate(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_submit_proposal',
    permission: 'proposal:write',
    title: 'Submit proposal',
    hint: 'W',
    description: 'Submits a valid draft proposal for review (draft -> pending). An admin then calls svc_admin_approve_proposal.',
    input: ProposalRefDto,
  })
  submitProposal(args: ProposalRefDto, ctx: ToolContext) {
    return this.proposals.submit(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_add_document_draft',
    permission: 'proposal:write',
    title: 'Add document draft',
    hint: 'W',
    description: 'Adds a document draft to a draft proposal. Add task drafts with svc_pm_add_task_draft.',
    input: DocumentDraftArgsDto,
  })
  addDocumentDraft(args: DocumentDraftArgsDto, ctx: ToolContext) {
    return this.proposals.addDocumentDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_add_task_draft',
    permission: 'proposal:write',
    title: 'Add task draft',
    hint: 'W',
    description: 'Adds a task draft with at least one acceptance criterion to a draft proposal. Check the proposal with svc_pm_validate_proposal.',
    input: TaskDraftArgsDto,
  })
  addTaskDraft(args: TaskDraftArgsDto, ctx: ToolContext) {
    return this.proposals.addTaskDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_update_document_draft',
    permission: 'proposal:write',
    title: 'Update document draft',
    hint: 'WI',
    description: 'Changes a document draft of a draft proposal. Check the proposal with svc_pm_validate_proposal.',
    input: UpdateDocumentDraftArgsDto,
  })
  updateDocumentDraft(args: UpdateDocumentDraftArgsDto, ctx: ToolContext) {
    return this.proposals.updateDocumentDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_update_task_draft',
    permission: 'proposal:write',
    title: 'Update task draft',
    hint: 'WI',
    description:
      "Changes a task draft of a draft proposal; a given criteria or dependency list replaces the old one. Check the proposal with svc_pm_validate_proposal.",
    input: UpdateTaskDraftArgsDto,
  })
  updateTaskDraft(args: UpdateTaskDraftArgsDto, ctx: ToolContext) {
    return this.proposals.updateTaskDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_remove_document_draft',
    permission: 'proposal:write',
    title: 'Remove document draft',
    hint: 'D',
    description: 'Removes a document draft from a draft proposal. Check the proposal with svc_pm_validate_proposal.',
    input: DraftArgsDto,
  })
  removeDocumentDraft(args: DraftArgsDto, ctx: ToolContext) {
    return this.proposals.removeDocumentDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_remove_task_draft',
    permission: 'proposal:write',
    title: 'Remove task draft',
    hint: 'D',
    description: "Removes a task draft from a draft proposal and from its siblings' dependencies. Check the proposal with svc_pm_validate_proposal.",
    input: DraftArgsDto,
  })
  removeTaskDraft(args: DraftArgsDto, ctx: ToolContext) {
    return this.proposals.removeTaskDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_reject_proposal',
    permission: 'proposal:write',
    title: 'Reject proposal',
    hint: 'W',
    description: 'Sends your pending proposal back with a note (pending -> draft). Edit it and call svc_pm_submit_proposal again.',
    input: RequiredReviewArgsDto,
  })
  rejectProposal(args: RequiredReviewArgsDto, ctx: ToolContext) {
    return this.proposals.reject(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_revoke_proposal',
    permission: 'proposal:write',
    title: 'Revoke proposal',
    hint: 'D',
    description:
      'Withdraws your approved proposal, closing its tasks and deleting its documents (approved -> draft). Edit it and call svc_pm_submit_proposal again.',
    input: OptionalReviewArgsDto,
  })
  revokeProposal(args: OptionalReviewArgsDto, ctx: ToolContext) {
    return this.revocation.revoke(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_approve_proposal',
    permission: 'proposal:admin',
    title: 'Approve proposal',
    hint: 'W',
    description:
      'Approves a pending proposal and creates its documents and open tasks (pending -> approved). Agents then take the tasks with svc_claim_task.',
    input: OptionalReviewArgsDto,
  })
  approveProposal(args: OptionalReviewArgsDto, ctx: ToolContext) {
    return this.approval.approve(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_close_proposal',
    permission: 'proposal:admin',
    title: 'Close proposal',
    hint: 'D',
    description: 'Closes a pending proposal for good with a note (pending -> closed). List the remaining ones with svc_get_proposals.',
    input: RequiredReviewArgsDto,
  })
  closeProposal(args: RequiredReviewArgsDto, ctx: ToolContext) {
    return this.proposals.close(ctx.actor, args);
  }
}
