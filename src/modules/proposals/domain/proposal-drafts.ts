import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '../../../shared/errors/app-error.js';
import { titleText } from '../../../shared/validation/text-rules.js';
import { normalizeCriteria, type CriterionInput } from '../../tasks/index.js';
import type { DocumentDraft, DocumentDraftType, Priority, TaskDraft } from '../proposal.entity.js';

/**
 * Pure edits of a proposal's draft arrays (docs/domain.md §2.10, docs/tool-conventions.md §5.6). Arguments are parsed first (before the
 * service looks at the proposal); the edit functions then apply them to the current arrays and return new ones.
 */
export const MAX_DOCUMENT_DRAFTS = 20;
export const MAX_TASK_DRAFTS = 100;
/** What a proposal is built from (docs/domain.md §5), 1–20 of them. */
export const PROPOSAL_INPUT_TYPES = ['idea', 'document'] as const;
export const MAX_PROPOSAL_INPUTS = 20;

/** A draft's fields as the arguments give them (their shape and limits checked at the edge). */
export interface DocumentDraftInput {
  type: DocumentDraftType;
  title: string;
  content: string;
}

export interface TaskDraftInput {
  title: string;
  description?: string;
  priority?: Priority | null;
  storyPoints?: number | null;
  acceptanceCriteriaItems: CriterionInput[];
  dependsOnDraftUuids?: string[];
}

export type DocumentDraftFields = Omit<DocumentDraft, 'uuid'>;
export type TaskDraftFields = Omit<TaskDraft, 'uuid'>;

export function parseDocumentDraft(input: DocumentDraftInput): DocumentDraftFields {
  return { type: input.type, title: titleText(input.title), content: input.content };
}

export function parseDocumentDraftPatch(input: Partial<DocumentDraftInput>): Partial<DocumentDraftFields> {
  if (input.type === undefined && input.title === undefined && input.content === undefined) throw new ValidationError('Nothing to update');
  const patch: Partial<DocumentDraftFields> = {};
  if (input.type !== undefined) patch.type = input.type;
  if (input.title !== undefined) patch.title = titleText(input.title);
  if (input.content !== undefined) patch.content = input.content;
  return patch;
}

export function parseTaskDraft(input: TaskDraftInput): TaskDraftFields {
  return {
    title: titleText(input.title),
    description: input.description ?? '',
    priority: input.priority ?? null,
    storyPoints: input.storyPoints ?? null,
    acceptanceCriteriaItems: normalizeCriteria(input.acceptanceCriteriaItems),
    dependsOnDraftUuids: [...new Set(input.dependsOnDraftUuids ?? [])],
  };
}

export function parseTaskDraftPatch(input: Partial<TaskDraftInput>): Partial<TaskDraftFields> {
  const patch: Partial<TaskDraftFields> = {};
  if (input.title !== undefined) patch.title = titleText(input.title);
  if (input.description !== undefined) patch.description = input.description;
  if (input.priority !== undefined) patch.priority = input.priority;
  if (input.storyPoints !== undefined) patch.storyPoints = input.storyPoints;
  if (input.acceptanceCriteriaItems !== undefined) patch.acceptanceCriteriaItems = normalizeCriteria(input.acceptanceCriteriaItems);
  if (input.dependsOnDraftUuids !== undefined) patch.dependsOnDraftUuids = [...new Set(input.dependsOnDraftUuids)];
  if (Object.keys(patch).length === 0) throw new ValidationError('Nothing to update');
  return patch;
}

export function addDocumentDraft(drafts: readonly DocumentDraft[], fields: DocumentDraftFields): { drafts: DocumentDraft[]; draft: DocumentDraft } {
  if (drafts.length >= MAX_DOCUMENT_DRAFTS) throw new ValidationError(`A proposal can have at most ${MAX_DOCUMENT_DRAFTS} document drafts`);
  const draft: DocumentDraft = { uuid: randomUUID(), ...fields };
  return { drafts: [...drafts, draft], draft };
}

export function updateDocumentDraft(drafts: readonly DocumentDraft[], draftUuid: string, patch: Partial<DocumentDraftFields>): DocumentDraft[] {
  const current = drafts.find((d) => d.uuid === draftUuid);
  if (!current) throw new NotFoundError('Document draft');
  return drafts.map((d) => (d.uuid === draftUuid ? { ...current, ...patch } : d));
}

/** An absent draft leaves the list as it is (the service then reports "unchanged"). */
export function removeDocumentDraft(drafts: readonly DocumentDraft[], draftUuid: string): DocumentDraft[] {
  return drafts.filter((d) => d.uuid !== draftUuid);
}

export function addTaskDraft(drafts: readonly TaskDraft[], fields: TaskDraftFields): { drafts: TaskDraft[]; draft: TaskDraft } {
  if (drafts.length >= MAX_TASK_DRAFTS) throw new ValidationError(`A proposal can have at most ${MAX_TASK_DRAFTS} task drafts`);
  const draft: TaskDraft = { uuid: randomUUID(), ...fields };
  checkDependencies(drafts, draft.uuid, draft.dependsOnDraftUuids);
  // A new draft cannot close a cycle: nothing depends on it yet.
  return { drafts: [...drafts, draft], draft };
}

export function updateTaskDraft(drafts: readonly TaskDraft[], draftUuid: string, patch: Partial<TaskDraftFields>): TaskDraft[] {
  const current = drafts.find((d) => d.uuid === draftUuid);
  if (!current) throw new NotFoundError('Task draft');
  if (patch.dependsOnDraftUuids) checkDependencies(drafts, draftUuid, patch.dependsOnDraftUuids);
  const result = drafts.map((d) => (d.uuid === draftUuid ? { ...current, ...patch } : d));
  if (patch.dependsOnDraftUuids && findDraftCycle(result)) throw new ValidationError('Draft dependencies would create a cycle');
  return result;
}

/** Removes the draft and strips it from its siblings' dependencies; an absent draft leaves the list as it is. */
export function removeTaskDraft(drafts: readonly TaskDraft[], draftUuid: string): TaskDraft[] {
  if (!drafts.some((d) => d.uuid === draftUuid)) return [...drafts];
  return drafts
    .filter((d) => d.uuid !== draftUuid)
    .map((d) => (d.dependsOnDraftUuids.includes(draftUuid) ? { ...d, dependsOnDraftUuids: d.dependsOnDraftUuids.filter((u) => u !== draftUuid) } : d));
}

/** Dependencies of draft `self` must name sibling drafts, never itself. */
function checkDependencies(drafts: readonly TaskDraft[], self: string, deps: readonly string[]): void {
  if (deps.includes(self)) throw new ValidationError('A task draft cannot depend on itself');
  const known = new Set(drafts.map((d) => d.uuid));
  for (const u of deps) if (!known.has(u)) throw new ValidationError(`Unknown task draft ${u}`);
}

/**
 * The uuids of one dependency cycle among the drafts, or null. Entries naming unknown drafts are ignored here
 * (E7 reports them separately).
 */
export function findDraftCycle(drafts: readonly TaskDraft[]): string[] | null {
  const deps = new Map(drafts.map((d) => [d.uuid, d.dependsOnDraftUuids]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (u: string): string[] | null => {
    const s = state.get(u);
    if (s === 'done') return null;
    if (s === 'visiting') return stack.slice(stack.indexOf(u));
    state.set(u, 'visiting');
    stack.push(u);
    for (const v of deps.get(u) ?? []) {
      if (!deps.has(v)) continue;
      const cycle = visit(v);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(u, 'done');
    return null;
  };
  for (const d of drafts) {
    const cycle = visit(d.uuid);
    if (cycle) return cycle;
  }
  return null;
}
