import {
  ALLOWED,
  TASK_STATUSES,
  acceptanceStatus,
  acceptanceSummary,
  checkTaskTransition,
  sideEffectsOf,
  type AcceptanceSummary,
  type Blocker,
  type TaskStatus,
  type TaskTrigger,
  type TransitionInput,
} from './task-transition.js';

const NONE = acceptanceSummary([]);
const blocker: Blocker = { uuid: 'b', title: 'Prereq', status: 'in_progress', assignee: null };

function check(trigger: TaskTrigger, status: TaskStatus, extra: Partial<TransitionInput> = {}) {
  return checkTaskTransition({ trigger, status, callerIsAssignee: true, unresolvedPrerequisites: [], acceptance: NONE, ...extra });
}

describe('§6.1 allowed status pairs', () => {
  const table: Record<TaskStatus, TaskStatus[]> = {
    open: ['assigned', 'closed'],
    assigned: ['open', 'in_progress', 'assigned', 'closed'],
    in_progress: ['to_verify', 'closed'],
    to_verify: ['done', 'in_progress', 'closed'],
    done: ['closed'],
    closed: [],
  };
  it.each(TASK_STATUSES)('%s allows exactly the listed targets', (from) => {
    expect([...ALLOWED[from]].sort()).toEqual([...table[from]].sort());
  });

  // Every pair reachable through some trigger is in the table, and no trigger produces a pair outside it.
  const triggers: TaskTrigger[] = ['claim', 'assign', 'release', 'start', 'submit', 'pull_back', 'verify', 'reopen', 'close', 'revoke_close'];
  it('no trigger ever yields a pair outside §6.1', () => {
    for (const t of triggers) {
      for (const from of TASK_STATUSES) {
        const r = check(t, from, { force: true, acceptance: acceptanceSummary([]) });
        if (r.ok) expect(ALLOWED[from]).toContain(r.to);
      }
    }
  });
  it('every allowed pair is reachable through some trigger', () => {
    const reached = new Set<string>();
    for (const t of triggers) for (const from of TASK_STATUSES) {
      const r = check(t, from);
      if (r.ok) reached.add(`${from}>${r.to}`);
    }
    for (const from of TASK_STATUSES) for (const to of table[from]) expect(reached).toContain(`${from}>${to}`);
  });
});

describe('§6.2 transitions', () => {
  it('self-claim: open -> assigned', () => {
    expect(check('claim', 'open', { callerIsAssignee: false })).toEqual({ ok: true, to: 'assigned' });
  });
  it.each(['assigned', 'in_progress', 'to_verify'] as TaskStatus[])('self-claim of a task %s by someone else: INVALID_STATE "assigned to someone else"', (s) => {
    expect(check('claim', s, { callerIsAssignee: false })).toMatchObject({
      ok: false,
      code: 'INVALID_STATE',
      message: 'Task is assigned to someone else; claim requires open',
    });
  });
  it.each(['done', 'closed'] as TaskStatus[])('self-claim of a %s task: INVALID_STATE', (s) => {
    expect(check('claim', s, { callerIsAssignee: false })).toMatchObject({ ok: false, code: 'INVALID_STATE', message: `Task is ${s}; claim requires open` });
  });
  it('self-claim by the current assignee is not a transition (the service answers unchanged first)', () => {
    expect(check('claim', 'assigned')).toMatchObject({ ok: false, code: 'INVALID_STATE', message: 'Task is assigned; claim requires open' });
  });

  it.each(['open', 'assigned'] as TaskStatus[])('assign: %s -> assigned, no actor rule', (s) => {
    expect(check('assign', s, { callerIsAssignee: false })).toEqual({ ok: true, to: 'assigned' });
  });
  it.each(['in_progress', 'to_verify', 'done', 'closed'] as TaskStatus[])('assign from %s: INVALID_STATE', (s) => {
    expect(check('assign', s)).toMatchObject({ ok: false, code: 'INVALID_STATE', message: `Task is ${s}; assign requires open or assigned` });
  });

  it('release: assigned -> open by the assignee', () => {
    expect(check('release', 'assigned')).toEqual({ ok: true, to: 'open' });
  });
  it('release by someone else: FORBIDDEN before the pair', () => {
    expect(check('release', 'in_progress', { callerIsAssignee: false })).toMatchObject({ ok: false, code: 'FORBIDDEN', message: 'Only the assignee can release this task' });
  });
  it.each(['in_progress', 'to_verify', 'done', 'closed'] as TaskStatus[])('release from %s: INVALID_STATE', (s) => {
    expect(check('release', s)).toMatchObject({ ok: false, code: 'INVALID_STATE', message: `Task is ${s}; release requires assigned` });
  });

  it('start: assigned -> in_progress', () => {
    expect(check('start', 'assigned')).toEqual({ ok: true, to: 'in_progress' });
  });
  it('start by someone else: FORBIDDEN with the status-change message (or the tool message)', () => {
    expect(check('start', 'assigned', { callerIsAssignee: false })).toMatchObject({ code: 'FORBIDDEN', message: "Only the assignee can change this task's status" });
    expect(check('start', 'assigned', { callerIsAssignee: false, forbiddenMessage: 'X' })).toMatchObject({ code: 'FORBIDDEN', message: 'X' });
  });
  it('start blocked by an unresolved prerequisite', () => {
    expect(check('start', 'assigned', { unresolvedPrerequisites: [blocker] })).toEqual({
      ok: false,
      code: 'BLOCKED',
      message: 'Cannot move to in_progress: 1 prerequisite(s) not done or closed',
      blockers: [blocker],
    });
  });
  it.each(['open', 'in_progress', 'to_verify', 'done', 'closed'] as TaskStatus[])('start from %s: INVALID_STATE', (s) => {
    expect(check('start', s)).toMatchObject({ ok: false, code: 'INVALID_STATE', message: `Task is ${s}; start requires assigned` });
  });

  it('submit: in_progress -> to_verify', () => {
    expect(check('submit', 'in_progress')).toEqual({ ok: true, to: 'to_verify' });
  });
  it('submit by someone else: FORBIDDEN', () => {
    expect(check('submit', 'in_progress', { callerIsAssignee: false })).toMatchObject({ code: 'FORBIDDEN', message: 'Only the assignee can submit this task' });
  });
  it('submit from assigned: INVALID_STATE with the documented message', () => {
    expect(check('submit', 'assigned')).toMatchObject({ code: 'INVALID_STATE', message: 'Task is assigned; submit requires in_progress' });
  });
  it('submit is not subject to the dependency rule', () => {
    expect(check('submit', 'in_progress', { unresolvedPrerequisites: [blocker] })).toEqual({ ok: true, to: 'to_verify' });
  });

  it('pull back: to_verify -> in_progress by the assignee, subject to the dependency rule', () => {
    expect(check('pull_back', 'to_verify')).toEqual({ ok: true, to: 'in_progress' });
    expect(check('pull_back', 'to_verify', { unresolvedPrerequisites: [blocker, blocker] })).toMatchObject({
      code: 'BLOCKED',
      message: 'Cannot move to in_progress: 2 prerequisite(s) not done or closed',
    });
    expect(check('pull_back', 'to_verify', { callerIsAssignee: false })).toMatchObject({ code: 'FORBIDDEN' });
  });

  const passedAll = acceptanceSummary([{ required: true, status: 'passed' }, { required: false, status: 'pending' }]);
  it('verify: to_verify -> done when every required criterion passed', () => {
    expect(check('verify', 'to_verify', { acceptance: passedAll, callerIsAssignee: false })).toEqual({ ok: true, to: 'done' });
  });
  it('verify without criteria passes the gate', () => {
    expect(check('verify', 'to_verify', { acceptance: NONE })).toEqual({ ok: true, to: 'done' });
  });
  it('verify with a required criterion not passed: CRITERIA_NOT_PASSED with the summary', () => {
    const a = acceptanceSummary([
      { required: true, status: 'passed' },
      { required: true, status: 'failed' },
      { required: true, status: 'pending' },
      { required: false, status: 'passed' },
    ]);
    expect(check('verify', 'to_verify', { acceptance: a })).toEqual({
      ok: false,
      code: 'CRITERIA_NOT_PASSED',
      message: 'Not all required acceptance criteria are passed (required 3, passed 1, failed 1, pending 1)',
      acceptanceSummary: a,
    });
  });
  it.each(['open', 'assigned', 'in_progress', 'done', 'closed'] as TaskStatus[])('verify from %s: INVALID_STATE (pair before gate)', (s) => {
    expect(check('verify', s, { acceptance: acceptanceSummary([{ required: true, status: 'pending' }]) })).toMatchObject({
      code: 'INVALID_STATE',
      message: `Task is ${s}; verify requires to_verify`,
    });
  });

  it('reopen: to_verify -> in_progress, dependency rule unless force', () => {
    expect(check('reopen', 'to_verify', { callerIsAssignee: false })).toEqual({ ok: true, to: 'in_progress' });
    expect(check('reopen', 'to_verify', { unresolvedPrerequisites: [blocker] })).toMatchObject({ code: 'BLOCKED' });
    expect(check('reopen', 'to_verify', { unresolvedPrerequisites: [blocker], force: true })).toEqual({ ok: true, to: 'in_progress' });
  });
  it('force does not skip the dependency rule for other triggers', () => {
    expect(check('start', 'assigned', { unresolvedPrerequisites: [blocker], force: true })).toMatchObject({ code: 'BLOCKED' });
  });
  it.each(['open', 'assigned', 'in_progress', 'done', 'closed'] as TaskStatus[])('reopen from %s: INVALID_STATE', (s) => {
    expect(check('reopen', s)).toMatchObject({ code: 'INVALID_STATE', message: `Task is ${s}; reopen requires to_verify` });
  });

  it.each(['open', 'assigned', 'in_progress', 'to_verify', 'done'] as TaskStatus[])('close (and revoke close) from %s -> closed', (s) => {
    expect(check('close', s, { callerIsAssignee: false })).toEqual({ ok: true, to: 'closed' });
    expect(check('revoke_close', s, { callerIsAssignee: false })).toEqual({ ok: true, to: 'closed' });
  });
  it('close of a closed task: INVALID_STATE', () => {
    expect(check('close', 'closed')).toMatchObject({ code: 'INVALID_STATE', message: 'Task is closed; close requires not closed' });
    expect(check('revoke_close', 'closed')).toMatchObject({ code: 'INVALID_STATE' });
  });
});

describe('§6.3 order of the check', () => {
  it('actor before pair: a non-assignee starting a done task is FORBIDDEN', () => {
    expect(check('start', 'done', { callerIsAssignee: false })).toMatchObject({ code: 'FORBIDDEN' });
  });
  it('pair before dependency rule', () => {
    expect(check('start', 'open', { unresolvedPrerequisites: [blocker] })).toMatchObject({ code: 'INVALID_STATE' });
  });
  it('admin moves have no actor rule', () => {
    for (const t of ['verify', 'reopen', 'close'] as TaskTrigger[]) {
      expect(check(t, 'to_verify', { callerIsAssignee: false }).ok).toBe(true);
    }
  });

  describe('side effects (step 6)', () => {
    it('entering open clears the assignee; entering assigned sets it', () => {
      expect(sideEffectsOf('assigned', 'open')).toMatchObject({ clearAssignee: true, setAssignee: false });
      expect(sideEffectsOf('open', 'assigned')).toMatchObject({ clearAssignee: false, setAssignee: true });
      expect(sideEffectsOf('assigned', 'assigned')).toMatchObject({ setAssignee: true });
    });
    it('leaving to_verify for anything but done resets criteria', () => {
      expect(sideEffectsOf('to_verify', 'in_progress').resetCriteria).toBe(true);
      expect(sideEffectsOf('to_verify', 'closed').resetCriteria).toBe(true);
      expect(sideEffectsOf('to_verify', 'done').resetCriteria).toBe(false);
      expect(sideEffectsOf('in_progress', 'closed').resetCriteria).toBe(false);
      expect(sideEffectsOf('in_progress', 'to_verify').resetCriteria).toBe(false);
    });
    it('entering closed checks out open check-ins', () => {
      for (const from of ['open', 'assigned', 'in_progress', 'to_verify', 'done'] as TaskStatus[]) {
        expect(sideEffectsOf(from, 'closed').checkoutSessions).toBe(true);
      }
      expect(sideEffectsOf('to_verify', 'done').checkoutSessions).toBe(false);
    });
  });
});

describe('acceptance summary and status (docs/domain.md §2.12)', () => {
  const sum = (...items: Array<[boolean, 'pending' | 'passed' | 'failed']>): AcceptanceSummary =>
    acceptanceSummary(items.map(([required, status]) => ({ required, status })));

  it('counts on the verification status', () => {
    expect(sum([true, 'passed'], [true, 'failed'], [false, 'pending'], [false, 'passed'])).toEqual({
      total: 4,
      required: 2,
      passed: 2,
      failed: 1,
      pending: 1,
      requiredPassed: 1,
      requiredFailed: 1,
      requiredPending: 0,
    });
  });
  it('status: failed > passed > in_progress > not_started', () => {
    expect(acceptanceStatus(sum([true, 'failed'], [true, 'passed']))).toBe('failed');
    expect(acceptanceStatus(sum([true, 'passed'], [false, 'failed']))).toBe('passed');
    expect(acceptanceStatus(sum([true, 'passed'], [true, 'pending']))).toBe('in_progress');
    expect(acceptanceStatus(sum([false, 'passed']))).toBe('in_progress');
    expect(acceptanceStatus(sum([true, 'pending']))).toBe('not_started');
    expect(acceptanceStatus(sum())).toBe('not_started');
  });
});
