import type { DocumentDraft, TaskDraft } from '../proposal.entity.js';
import { findDraftCycle } from './proposal-drafts.js';
import { charLength } from '../../../shared/validation/text-rules.js';

/** Submit-time validation of docs/domain.md §5.2, pure: the service loads the inputs and passes what it found. */
export type IssueLevel = 'error' | 'warning' | 'info';

export interface ValidationIssue {
  id: string;
  level: IssueLevel;
  message: string;
  field?: string;
}

export interface ProposalUnderValidation {
  description: string;
  inputType: 'idea' | 'document';
  inputUuids: readonly string[];
  documentDrafts: readonly DocumentDraft[];
  taskDrafts: readonly TaskDraft[];
}

/** The inputs that still exist in the proposal's project, keyed by uuid (ideas carry their resolution state). */
export interface FoundInputs {
  ideas: ReadonlyMap<string, { title: string; isContainer: boolean; elaborationStatus: string | null }>;
  documents: ReadonlySet<string>;
}

export const MIN_DOCUMENT_CONTENT = 100;

export function validateProposal(p: ProposalUnderValidation, found: FoundInputs): { valid: boolean; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const add = (id: string, level: IssueLevel, message: string, field?: string): void => {
    issues.push(field === undefined ? { id, level, message } : { id, level, message, field });
  };
  const docs = p.documentDrafts;
  const tasks = p.taskDrafts;

  if (docs.length === 0) add('E1', 'error', 'At least one document draft is required', 'documentDrafts');
  docs.forEach((d, i) => {
    if (charLength(d.content) < MIN_DOCUMENT_CONTENT) {
      add('E2', 'error', `Document draft "${d.title}" needs at least ${MIN_DOCUMENT_CONTENT} characters of content`, `documentDrafts[${i}]`);
    }
  });
  if (tasks.length === 0) add('E3', 'error', 'At least one task draft is required', 'taskDrafts');

  if (p.inputUuids.length === 0) add('E4', 'error', 'The proposal has no inputs', 'inputUuids');
  p.inputUuids.forEach((u, i) => {
    const exists = p.inputType === 'idea' ? found.ideas.has(u) : found.documents.has(u);
    if (!exists) add('E4', 'error', `Input ${p.inputType} ${u} no longer exists in the project`, `inputUuids[${i}]`);
  });
  if (p.inputType === 'idea') {
    p.inputUuids.forEach((u, i) => {
      const idea = found.ideas.get(u);
      if (!idea) return;
      if (idea.isContainer) add('E5', 'error', `Input idea "${idea.title}" is a theme; derive a child idea`, `inputUuids[${i}]`);
      else if (idea.elaborationStatus !== 'resolved') add('E5', 'error', `Input idea "${idea.title}" is not resolved`, `inputUuids[${i}]`);
    });
  }

  tasks.forEach((t, i) => {
    if (!t.acceptanceCriteriaItems.some((c) => (c.description ?? '').trim() !== '')) {
      add('E6', 'error', `Task draft "${t.title}" needs at least one acceptance criterion with a non-empty description`, `taskDrafts[${i}]`);
    }
  });

  const known = new Set(tasks.map((t) => t.uuid));
  tasks.forEach((t, i) => {
    for (const dep of t.dependsOnDraftUuids) {
      if (dep === t.uuid) add('E7', 'error', `Task draft "${t.title}" depends on itself`, `taskDrafts[${i}]`);
      else if (!known.has(dep)) add('E7', 'error', `Task draft "${t.title}" depends on unknown task draft ${dep}`, `taskDrafts[${i}]`);
    }
  });
  const cycle = findDraftCycle(tasks.map((t) => ({ ...t, dependsOnDraftUuids: t.dependsOnDraftUuids.filter((d) => d !== t.uuid) })));
  if (cycle) {
    const first = tasks.findIndex((t) => t.uuid === cycle[0]);
    const titles = cycle.map((u) => `"${tasks.find((t) => t.uuid === u)!.title}"`).join(' -> ');
    add('E7', 'error', `Task draft dependencies form a cycle: ${titles}`, `taskDrafts[${first}]`);
  }

  if (!docs.some((d) => d.type === 'tech_design')) add('W1', 'warning', 'No document draft of type tech_design', 'documentDrafts');
  tasks.forEach((t, i) => {
    if (t.description.trim() === '') add('W2', 'warning', `Task draft "${t.title}" has no description`, `taskDrafts[${i}]`);
  });
  if (tasks.length >= 2 && !tasks.some((t) => t.dependsOnDraftUuids.length > 0)) {
    add('W3', 'warning', 'No task draft declares a dependency', 'taskDrafts');
  }
  if (p.description.trim() === '') add('W4', 'warning', 'The proposal description is empty', 'description');

  tasks.forEach((t, i) => {
    if (!t.priority) add('I1', 'info', `Task draft "${t.title}" has no priority; medium will be used`, `taskDrafts[${i}]`);
  });
  tasks.forEach((t, i) => {
    if (t.storyPoints === null || t.storyPoints === undefined) add('I2', 'info', `Task draft "${t.title}" has no story points`, `taskDrafts[${i}]`);
  });

  return { valid: !issues.some((i) => i.level === 'error'), issues };
}
