/**
 * `hints` of INVALID_STATE and BLOCKED refusals (docs/tool-conventions.md §1.5): what moves the record on from where it stands,
 * naming the tool that does it. The same strings reach the REST error body (docs/platform.md §5, same extra fields).
 *
 * INVALID_STATE messages follow docs/tool-conventions.md §1.4, `<Entity> is <status>; <operation> requires <expected>` (or
 * `<Entity> has …` for a round's state), so the hint is read from the message in one place: the entity and its
 * current status pick the row, the operation refines it where the status alone is not enough. A message this table
 * does not know gets no hints (the field is then absent).
 *
 * Gated tools are named anyway (they are what moves the record on), with the permission they need; where only a
 * human or an admin can act, the hint says so.
 */

const HELD_BY_OTHER =
  'Someone else holds this task: only its assignee moves it on (svc_release_task, svc_update_task, svc_submit_for_verify). Find other work with svc_get_available_tasks';

const TASK: Record<string, string[]> = {
  open: ['Task is open: svc_claim_task takes it (or svc_pm_assign_task gives it to an agent), then svc_update_task with status in_progress starts it'],
  assigned: ['Start it first: svc_update_task with status in_progress (the assignee only)'],
  in_progress: ['Submit it for verification: svc_submit_for_verify (the assignee only)'],
  to_verify: [
    'Awaiting verification: svc_admin_verify_task accepts it, svc_admin_reopen_task sends it back (both need task:admin; otherwise a human verifies it)',
    'Its assignee can take it back with svc_update_task with status in_progress',
  ],
  done: ['Task is done: nothing moves it on but svc_admin_close_task (task:admin). Track further work as a new task with svc_create_tasks'],
  closed: ['Task is closed for good: no tool moves it on. Track further work as a new task with svc_create_tasks'],
};

const IDEA: Record<string, string[]> = {
  open: ['Claim it first: svc_claim_idea (idea:write)'],
  elaborating: [
    'Elaboration is under way: svc_pm_start_elaboration asks questions, svc_answer_elaboration answers them, then svc_pm_validate_elaboration (idea:admin) or svc_pm_skip_elaboration finishes it',
  ],
  elaborated: [
    'Elaboration is finished: svc_pm_create_proposal (proposal:write) turns the idea into a proposal; svc_pm_start_elaboration asks a further round',
  ],
};

const PROPOSAL: Record<string, string[]> = {
  draft: ['Submit it for review: svc_pm_submit_proposal (check it first with svc_pm_validate_proposal)'],
  pending: [
    'Awaiting review: svc_admin_approve_proposal or svc_admin_close_proposal (proposal:admin; otherwise a human reviews it); svc_pm_reject_proposal returns it to draft for edits',
  ],
  approved: ['Proposal is approved: its tasks are live (svc_list_tasks with proposalUuids); svc_pm_revoke_proposal returns it to draft, closing its tasks'],
  closed: ['Proposal is closed for good: start over with svc_pm_create_proposal'],
};

const SESSION: Record<string, string[]> = {
  closed: ['Reopen it with svc_reopen_session, or start a new one with svc_create_session'],
};

const STATE_MESSAGE = /^(Task|Idea|Proposal|Session|Round) (is|has) (.+?); (.+?) requires (.+)$/;

/** Hints for an INVALID_STATE message; empty when nothing applies. */
export function invalidStateHints(message: string): string[] {
  const m = STATE_MESSAGE.exec(message);
  if (!m) return [];
  const [, entity, verb, state, op] = m;
  if (verb === 'has') {
    if (entity === 'Idea' && op === 'start elaboration') {
      return ['Answer the pending round first: svc_answer_elaboration (svc_get_elaboration shows its questions)'];
    }
    if (entity === 'Idea' && op === 'answer') {
      return ['No round awaits answers: svc_pm_start_elaboration asks a new one; svc_pm_validate_elaboration (idea:admin) or svc_pm_skip_elaboration finishes the elaboration'];
    }
    return [];
  }
  switch (entity) {
    case 'Task':
      if (state === 'assigned to someone else') return [HELD_BY_OTHER];
      return TASK[state] ?? [];
    case 'Idea':
      // Claiming an idea the caller already elaborates succeeds, so a refused claim means someone else holds it.
      if (state === 'elaborating' && op === 'claim') return ['Someone else elaborates this idea: it moves on when they release it (svc_release_idea). Find other ideas with svc_get_available_ideas'];
      return IDEA[state] ?? [];
    case 'Proposal':
      return PROPOSAL[state] ?? [];
    case 'Session':
      return SESSION[state] ?? [];
    case 'Round':
      return state === 'answered' ? ['That round is answered: svc_get_elaboration shows the pending one, svc_pm_start_elaboration asks a new one'] : [];
    default:
      return [];
  }
}

export interface BlockerLike {
  uuid: string;
  title: string;
  status: string;
}

/** What each unresolved prerequisite waits for. */
const BLOCKER_NEXT: Record<string, string> = {
  open: 'needs an assignee (svc_claim_task, or svc_pm_assign_task)',
  assigned: 'waits for its assignee to start it (svc_update_task with status in_progress)',
  in_progress: 'waits for its assignee to submit it (svc_submit_for_verify)',
  to_verify: 'awaits verification (svc_admin_verify_task, task:admin; otherwise a human verifies it)',
};

/** Prerequisites listed one per hint; the rest are counted. */
const MAX_LISTED_BLOCKERS = 10;

/** Hints for a BLOCKED refusal: each prerequisite's next step, then where to look. */
export function blockedHints(blockers: readonly BlockerLike[], opts: { forceable?: boolean } = {}): string[] {
  const hints = blockers
    .slice(0, MAX_LISTED_BLOCKERS)
    .map((b) => `Prerequisite "${b.title}" (${b.uuid}) is ${b.status}: it ${BLOCKER_NEXT[b.status] ?? 'must be done or closed first'}`);
  if (blockers.length > MAX_LISTED_BLOCKERS) hints.push(`… and ${blockers.length - MAX_LISTED_BLOCKERS} more prerequisite(s)`);
  hints.push('Follow the prerequisites with svc_get_task; svc_get_available_tasks lists work you can start now');
  if (opts.forceable) hints.push('svc_admin_reopen_task with force: true reopens it anyway');
  return hints;
}
