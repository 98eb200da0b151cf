import { restFields, toolPaths } from '../../../../test/utils/dto-check.js';
import { DocumentDraftArgsDto, DocumentDraftDto, TaskDraftArgsDto, TaskDraftDto, UpdateTaskDraftArgsDto, UpdateTaskDraftDto } from './proposal-draft.dto.js';
import { CreateProposalArgsDto, CreateProposalDto, GetProposalArgsDto, ListProposalsArgsDto, OptionalReviewDto } from './proposal.dto.js';

const UUID = '0190c3b5-7d2e-7a1b-9c3d-4e5f6a7b8c9d';
const ref = { type: 'docs', url: 'https://x.test', title: 'r' };

describe('proposal DTOs: the tool arguments and the REST bodies they derive from', () => {
  it('create: idea or document inputs, 1-20 of them, at most 10 references', async () => {
    const base = { title: 'T', inputType: 'idea', inputUuids: [UUID] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ inputType: 'task' }, 'inputType'],
      [{ inputUuids: [] }, 'inputUuids'],
      [{ inputUuids: Array.from({ length: 21 }, () => UUID) }, 'inputUuids'],
      [{ references: Array(11).fill(ref) }, 'references'],
    ];
    for (const [override, field] of cases) {
      expect(toolPaths(CreateProposalArgsDto, { projectUuid: UUID, ...base, ...override })).toEqual([field]);
      expect(await restFields(CreateProposalDto, { ...base, ...override })).toEqual([field]);
    }
  });

  it('reads: a known section and status', () => {
    expect(toolPaths(GetProposalArgsDto, { proposalUuid: UUID, section: 'everything' })).toEqual(['section']);
    expect(toolPaths(ListProposalsArgsDto, { projectUuid: UUID, status: 'open' })).toEqual(['status']);
  });

  it('an optional review note is a string when given', async () => {
    expect(await restFields(OptionalReviewDto, { reviewNote: null })).toEqual(['reviewNote']);
    expect(await restFields(OptionalReviewDto, {})).toEqual([]);
  });

  it('drafts: authored document types, content up to 100000 characters, priorities, story points 0-1000', async () => {
    const doc: Array<[Record<string, unknown>, string]> = [
      [{ type: 'report', title: 'R', content: '' }, 'type'],
      [{ type: 'prd', title: 'Big', content: 'x'.repeat(100_001) }, 'content'],
    ];
    for (const [body, field] of doc) {
      expect(toolPaths(DocumentDraftArgsDto, { proposalUuid: UUID, ...body })).toEqual([field]);
      expect(await restFields(DocumentDraftDto, body)).toEqual([field]);
    }
    const task = { title: 'T', acceptanceCriteriaItems: [{ description: 'ok' }] };
    for (const [extra, field] of [[{ priority: 'urgent' }, 'priority'], [{ storyPoints: 1001 }, 'storyPoints'], [{ priority: null }, 'priority']] as const) {
      expect(toolPaths(TaskDraftArgsDto, { proposalUuid: UUID, ...task, ...extra })).toEqual([field]);
      expect(await restFields(TaskDraftDto, { ...task, ...extra })).toEqual([field]);
    }
    // An update may clear the priority and the story points with null.
    expect(toolPaths(UpdateTaskDraftArgsDto, { proposalUuid: UUID, draftUuid: UUID, priority: null, storyPoints: null })).toEqual([]);
    expect(await restFields(UpdateTaskDraftDto, { priority: null, storyPoints: null })).toEqual([]);
  });
});
