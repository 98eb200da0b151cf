/**
 * The single transition check of docs/domain.md §6.3, as a pure function. Every path that changes a task's status
 * (claim, assign, session auto-claim, release, update/report-work moves, submit, verify, reopen, close, revoke)
 * calls `checkTaskTransition`; the service then applies `sideEffectsOf` in the same transaction.
 */
export type TaskStatus = 'open' | 'assigned' | 'in_progress' | 'to_verify' | 'done' | 'closed';
export const TASK_STATUSES: readonly TaskStatus[] = ['open', 'assigned', 'in_progress', 'to_verify', 'done', 'closed'];

export type TaskTrigger =
  | 'claim' // self-claim (tool, REST, session auto-claim)
  | 'assign'
  | 'release'
  | 'start' // assigned -> in_progress
  | 'submit' // in_progress -> to_verify
  | 'pull_back' // to_verify -> in_progress by the assignee
  | 'verify'
  | 'reopen'
  | 'close'
  | 'revoke_close';

/** Allowed status pairs (§6.1). */
export const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  open: ['assigned', 'closed'],
  assigned: ['open', 'in_progress', 'assigned', 'closed'],
  in_progress: ['to_verify', 'closed'],
  to_verify: ['done', 'in_progress', 'closed'],
  done: ['closed'],
  closed: [],
};

/** Which source statuses each trigger accepts, with its target (§6.2). */
const TRIGGERS: Record<TaskTrigger, { from: readonly TaskStatus[]; to: TaskStatus | ((from: TaskStatus) => TaskStatus); op: string; expected: string }> = {
  claim: { from: ['open'], to: 'assigned', op: 'claim', expected: 'open' },
  assign: { from: ['open', 'assigned'], to: 'assigned', op: 'assign', expected: 'open or assigned' },
  release: { from: ['assigned'], to: 'open', op: 'release', expected: 'assigned' },
  start: { from: ['assigned'], to: 'in_progress', op: 'start', expected: 'assigned' },
  submit: { from: ['in_progress'], to: 'to_verify', op: 'submit', expected: 'in_progress' },
  pull_back: { from: ['to_verify'], to: 'in_progress', op: 'move to in_progress', expected: 'to_verify' },
  verify: { from: ['to_verify'], to: 'done', op: 'verify', expected: 'to_verify' },
  reopen: { from: ['to_verify'], to: 'in_progress', op: 'reopen', expected: 'to_verify' },
  close: { from: ['open', 'assigned', 'in_progress', 'to_verify', 'done'], to: 'closed', op: 'close', expected: 'not closed' },
  revoke_close: { from: ['open', 'assigned', 'in_progress', 'to_verify', 'done'], to: 'closed', op: 'close', expected: 'not closed' },
};

/** Statuses in which a task has an assignee. */
const HELD: readonly TaskStatus[] = ['assigned', 'in_progress', 'to_verify'];

const ASSIGNEE_ONLY: ReadonlySet<TaskTrigger> = new Set(['release', 'start', 'submit', 'pull_back']);

export interface Blocker {
  uuid: string;
  title: string;
  status: TaskStatus;
  assignee: unknown;
}

export interface AcceptanceSummary {
  total: number;
  required: number;
  passed: number;
  failed: number;
  pending: number;
  requiredPassed: number;
  requiredFailed: number;
  requiredPending: number;
}

export interface TransitionInput {
  trigger: TaskTrigger;
  status: TaskStatus;
  /** Whether the caller counts as the assignee under the identity rule. */
  callerIsAssignee: boolean;
  /** Prerequisites that are not done/closed (only consulted for moves into in_progress). */
  unresolvedPrerequisites: readonly Blocker[];
  /** Only consulted for moves into done. */
  acceptance: AcceptanceSummary;
  force?: boolean;
  /** FORBIDDEN message for the assignee rule, per tool. */
  forbiddenMessage?: string;
}

export type TransitionRefusal =
  | { code: 'FORBIDDEN'; message: string }
  | { code: 'INVALID_STATE'; message: string }
  | { code: 'BLOCKED'; message: string; blockers: Blocker[] }
  | { code: 'CRITERIA_NOT_PASSED'; message: string; acceptanceSummary: AcceptanceSummary };

export type TransitionResult = { ok: true; to: TaskStatus } | ({ ok: false } & TransitionRefusal);

const FORBIDDEN_DEFAULT: Partial<Record<TaskTrigger, string>> = {
  release: 'Only the assignee can release this task',
  submit: 'Only the assignee can submit this task',
  start: "Only the assignee can change this task's status",
  pull_back: "Only the assignee can change this task's status",
};

export function checkTaskTransition(input: TransitionInput): TransitionResult {
  const rule = TRIGGERS[input.trigger];
  // 2. Actor: operational moves and release require the assignee.
  if (ASSIGNEE_ONLY.has(input.trigger) && !input.callerIsAssignee) {
    return { ok: false, code: 'FORBIDDEN', message: input.forbiddenMessage ?? FORBIDDEN_DEFAULT[input.trigger]! };
  }
  // 3. Pair.
  const to = typeof rule.to === 'function' ? rule.to(input.status) : rule.to;
  if (!rule.from.includes(input.status) || !ALLOWED[input.status].includes(to)) {
    // A task held by someone else reads "assigned to someone else" whatever its working status (docs/tool-conventions.md §1.4).
    const heldByOther = input.trigger === 'claim' && !input.callerIsAssignee && HELD.includes(input.status);
    const statusText = heldByOther ? 'assigned to someone else' : input.status;
    return { ok: false, code: 'INVALID_STATE', message: `Task is ${statusText}; ${rule.op} requires ${rule.expected}` };
  }
  // 4. Dependency rule.
  if (to === 'in_progress' && !(input.trigger === 'reopen' && input.force) && input.unresolvedPrerequisites.length > 0) {
    const n = input.unresolvedPrerequisites.length;
    return {
      ok: false,
      code: 'BLOCKED',
      message: `Cannot move to in_progress: ${n} prerequisite(s) not done or closed`,
      blockers: [...input.unresolvedPrerequisites],
    };
  }
  // 5. Acceptance-criteria gate.
  if (to === 'done' && input.acceptance.total > 0 && input.acceptance.requiredPassed < input.acceptance.required) {
    const a = input.acceptance;
    return {
      ok: false,
      code: 'CRITERIA_NOT_PASSED',
      message: `Not all required acceptance criteria are passed (required ${a.required}, passed ${a.requiredPassed}, failed ${a.requiredFailed}, pending ${a.requiredPending})`,
      acceptanceSummary: a,
    };
  }
  return { ok: true, to };
}

export interface SideEffects {
  clearAssignee: boolean;
  setAssignee: boolean;
  resetCriteria: boolean;
  checkoutSessions: boolean;
}

/** §6.3 step 6. */
export function sideEffectsOf(from: TaskStatus, to: TaskStatus): SideEffects {
  return {
    clearAssignee: to === 'open',
    setAssignee: to === 'assigned',
    resetCriteria: from === 'to_verify' && to !== 'done',
    checkoutSessions: to === 'closed',
  };
}

export interface CriterionMarks {
  required: boolean;
  status: 'pending' | 'passed' | 'failed';
}

export function acceptanceSummary(criteria: readonly CriterionMarks[]): AcceptanceSummary {
  const s: AcceptanceSummary = { total: 0, required: 0, passed: 0, failed: 0, pending: 0, requiredPassed: 0, requiredFailed: 0, requiredPending: 0 };
  for (const c of criteria) {
    s.total++;
    s[c.status]++;
    if (c.required) {
      s.required++;
      if (c.status === 'passed') s.requiredPassed++;
      else if (c.status === 'failed') s.requiredFailed++;
      else s.requiredPending++;
    }
  }
  return s;
}

export type AcceptanceStatus = 'failed' | 'passed' | 'in_progress' | 'not_started';

export function acceptanceStatus(s: AcceptanceSummary): AcceptanceStatus {
  if (s.requiredFailed > 0) return 'failed';
  if (s.required > 0 && s.requiredPassed === s.required) return 'passed';
  if (s.passed + s.failed > 0) return 'in_progress';
  return 'not_started';
}
