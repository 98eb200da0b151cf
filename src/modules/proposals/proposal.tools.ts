import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Tool, criteriaItems, documentDraftType, longText, paging, priority, references, storyPoints, title, uuid, type ToolContext } from '../tools/index.js';
import { ProposalApprovalService } from './proposal-approval.service.js';
import { ProposalRevocationService } from './proposal-revocation.service.js';
import { ProposalService } from './proposal.service.js';

/** MCP tools of tools.md §5.1 (proposal reads), §5.6 (proposal:write) and §5.8 (proposal:admin). */
const proposalUuid = uuid('The proposal');
const draftUuid = uuid('The draft, as returned by the add tool or listed in the draft index');
const ref = z.strictObject({ proposalUuid });
const draftRef = z.strictObject({ proposalUuid, draftUuid });
const note = (required: boolean) =>
  required
    ? z.string().min(1).max(2000).describe('Review note, 1-2000 characters')
    : z.string().max(2000).optional().describe('Review note, at most 2000 characters');

const list = z.strictObject({
  projectUuid: uuid('The project'),
  status: z.enum(['draft', 'pending', 'approved', 'closed']).optional().describe('Only proposals in this status'),
  ...paging,
});
const get = z.strictObject({
  proposalUuid,
  section: z
    .enum(['basic', 'documents', 'tasks', 'full'])
    .optional()
    .describe('basic (default): draft indexes; documents: full document drafts; tasks: full task drafts; full: both'),
});
const create = z.strictObject({
  projectUuid: uuid('The project the proposal belongs to'),
  title: title('Proposal title, 1-200 characters'),
  description: longText('Why and what, at most 100000 characters').optional(),
  inputType: z.enum(['idea', 'document']).describe('What the inputs are: resolved deliverable ideas assigned to you, or documents'),
  inputUuids: z.array(uuid()).min(1).max(20).describe('1-20 distinct ideas or documents of the same project'),
  references,
});
const addDocumentDraft = z.strictObject({
  proposalUuid,
  type: documentDraftType.describe('Document type'),
  title: title('Document title, 1-200 characters'),
  content: longText('Markdown content, at most 100000 characters; submission needs at least 100'),
});
const updateDocumentDraft = z.strictObject({
  proposalUuid,
  draftUuid,
  type: documentDraftType.optional().describe('New document type'),
  title: title('New title, 1-200 characters').optional(),
  content: longText('New markdown content, at most 100000 characters').optional(),
});
const dependsOnDraftUuids = z.array(uuid()).max(100).describe('Task drafts of this proposal that must be finished first');
const addTaskDraft = z.strictObject({
  proposalUuid,
  title: title('Task title, 1-200 characters'),
  description: longText('Task description, at most 100000 characters').optional(),
  priority: priority.optional().describe('Priority (default medium)'),
  storyPoints: storyPoints.optional().describe('Estimate, 0-1000'),
  acceptanceCriteriaItems: criteriaItems,
  dependsOnDraftUuids: dependsOnDraftUuids.optional(),
});
const updateTaskDraft = z.strictObject({
  proposalUuid,
  draftUuid,
  title: title('New title, 1-200 characters').optional(),
  description: longText('New description, at most 100000 characters').optional(),
  priority: priority.optional().describe('New priority'),
  storyPoints: storyPoints.nullable().optional().describe('New estimate, 0-1000, or null to clear it'),
  acceptanceCriteriaItems: criteriaItems.optional(),
  dependsOnDraftUuids: dependsOnDraftUuids.optional().describe('Replaces the dependencies; sibling task drafts only, no self, no cycle'),
});
const reviewRequired = z.strictObject({ proposalUuid, reviewNote: note(true) });
const reviewOptional = z.strictObject({ proposalUuid, reviewNote: note(false) });

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
    input: list,
  })
  getProposals(args: z.infer<typeof list>, ctx: ToolContext) {
    return this.proposals.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_proposal',
    title: 'Get proposal',
    hint: 'R',
    description:
      'Returns one proposal; section chooses draft indexes (basic), documents, tasks or full. Check it with svc_pm_validate_proposal before svc_pm_submit_proposal.',
    input: get,
  })
  getProposal(args: z.infer<typeof get>, ctx: ToolContext) {
    return this.proposals.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_create_proposal',
    permission: 'proposal:write',
    title: 'Create proposal',
    hint: 'W',
    description:
      'Creates an empty proposal from resolved deliverable ideas or documents (-> draft). Fill it with svc_pm_add_document_draft and svc_pm_add_task_draft.',
    input: create,
  })
  createProposal(args: z.infer<typeof create>, ctx: ToolContext) {
    return this.proposals.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_validate_proposal',
    permission: 'proposal:write',
    title: 'Validate proposal',
    hint: 'R',
    description: 'Checks a proposal against the submission rules and lists errors, warnings and infos. Fix the errors, then call svc_pm_submit_proposal.',
    input: ref,
  })
  validateProposal(args: z.infer<typeof ref>, ctx: ToolContext) {
    return this.proposals.validate(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_submit_proposal',
    permission: 'proposal:write',
    title: 'Submit proposal',
    hint: 'W',
    description: 'Submits a valid draft proposal for review (draft -> pending). An admin then calls svc_admin_approve_proposal.',
    input: ref,
  })
  submitProposal(args: z.infer<typeof ref>, ctx: ToolContext) {
    return this.proposals.submit(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_add_document_draft',
    permission: 'proposal:write',
    title: 'Add document draft',
    hint: 'W',
    description: 'Adds a document draft to a draft proposal. Add task drafts with svc_pm_add_task_draft.',
    input: addDocumentDraft,
  })
  addDocumentDraft(args: z.infer<typeof addDocumentDraft>, ctx: ToolContext) {
    return this.proposals.addDocumentDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_add_task_draft',
    permission: 'proposal:write',
    title: 'Add task draft',
    hint: 'W',
    description: 'Adds a task draft with at least one acceptance criterion to a draft proposal. Check the proposal with svc_pm_validate_proposal.',
    input: addTaskDraft,
  })
  addTaskDraft(args: z.infer<typeof addTaskDraft>, ctx: ToolContext) {
    return this.proposals.addTaskDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_update_document_draft',
    permission: 'proposal:write',
    title: 'Update document draft',
    hint: 'WI',
    description: 'Changes a document draft of a draft proposal. Check the proposal with svc_pm_validate_proposal.',
    input: updateDocumentDraft,
  })
  updateDocumentDraft(args: z.infer<typeof updateDocumentDraft>, ctx: ToolContext) {
    return this.proposals.updateDocumentDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_update_task_draft',
    permission: 'proposal:write',
    title: 'Update task draft',
    hint: 'WI',
    description:
      "Changes a task draft of a draft proposal; a given criteria or dependency list replaces the old one. Check the proposal with svc_pm_validate_proposal.",
    input: updateTaskDraft,
  })
  updateTaskDraft(args: z.infer<typeof updateTaskDraft>, ctx: ToolContext) {
    return this.proposals.updateTaskDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_remove_document_draft',
    permission: 'proposal:write',
    title: 'Remove document draft',
    hint: 'D',
    description: 'Removes a document draft from a draft proposal. Check the proposal with svc_pm_validate_proposal.',
    input: draftRef,
  })
  removeDocumentDraft(args: z.infer<typeof draftRef>, ctx: ToolContext) {
    return this.proposals.removeDocumentDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_remove_task_draft',
    permission: 'proposal:write',
    title: 'Remove task draft',
    hint: 'D',
    description: "Removes a task draft from a draft proposal and from its siblings' dependencies. Check the proposal with svc_pm_validate_proposal.",
    input: draftRef,
  })
  removeTaskDraft(args: z.infer<typeof draftRef>, ctx: ToolContext) {
    return this.proposals.removeTaskDraft(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_reject_proposal',
    permission: 'proposal:write',
    title: 'Reject proposal',
    hint: 'W',
    description: 'Sends your pending proposal back with a note (pending -> draft). Edit it and call svc_pm_submit_proposal again.',
    input: reviewRequired,
  })
  rejectProposal(args: z.infer<typeof reviewRequired>, ctx: ToolContext) {
    return this.proposals.reject(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_revoke_proposal',
    permission: 'proposal:write',
    title: 'Revoke proposal',
    hint: 'D',
    description:
      'Withdraws your approved proposal, closing its tasks and deleting its documents (approved -> draft). Edit it and call svc_pm_submit_proposal again.',
    input: reviewOptional,
  })
  revokeProposal(args: z.infer<typeof reviewOptional>, ctx: ToolContext) {
    return this.revocation.revoke(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_approve_proposal',
    permission: 'proposal:admin',
    title: 'Approve proposal',
    hint: 'W',
    description:
      'Approves a pending proposal and creates its documents and open tasks (pending -> approved). Agents then take the tasks with svc_claim_task.',
    input: reviewOptional,
  })
  approveProposal(args: z.infer<typeof reviewOptional>, ctx: ToolContext) {
    return this.approval.approve(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_close_proposal',
    permission: 'proposal:admin',
    title: 'Close proposal',
    hint: 'D',
    description: 'Closes a pending proposal for good with a note (pending -> closed). List the remaining ones with svc_get_proposals.',
    input: reviewRequired,
  })
  closeProposal(args: z.infer<typeof reviewRequired>, ctx: ToolContext) {
    return this.proposals.close(ctx.actor, args);
  }
}
