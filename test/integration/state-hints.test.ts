import { TOOL_ORDER } from '../../src/modules/tool-kit/catalogue.js';
import { checkTaskTransition, TASK_STATUSES, type TaskTrigger } from '../../src/modules/tasks/domain/task-transition.js';
import { PROPOSAL_TRANSITIONS, checkProposalTransition, type ProposalTrigger } from '../../src/modules/proposals/domain/proposal-state.js';
import { PROPOSAL_STATUSES } from '../../src/modules/proposals/domain/proposal-statuses.js';
import { BlockedError, InvalidStateError } from '../../src/shared/errors/app-error.js';
import { blockedHints, invalidStateHints } from '../../src/shared/errors/state-hints.js';

const TOOLS = new Set(TOOL_ORDER);
const toolsIn = (hints: string[]): string[] => hints.flatMap((h) => h.match(/svc_[a-z_]+/g) ?? []);
const NO_ACCEPTANCE = { total: 0, required: 0, passed: 0, failed: 0, pending: 0, requiredPassed: 0, requiredFailed: 0, requiredPending: 0 };
const TASK_TRIGGERS: TaskTrigger[] = ['claim', 'assign', 'release', 'start', 'submit', 'pull_back', 'verify', 'reopen', 'close', 'revoke_close'];

/** Every INVALID_STATE message the task and proposal state machines can produce. */
function stateMachineMessages(): string[] {
  const out = new Set<string>();
  for (const status of TASK_STATUSES) {
    for (const trigger of TASK_TRIGGERS) {
      for (const callerIsAssignee of [true, false]) {
        const r = checkTaskTransition({ trigger, status, callerIsAssignee, unresolvedPrerequisites: [], acceptance: NO_ACCEPTANCE });
        if (!r.ok && r.code === 'INVALID_STATE') out.add(r.message);
      }
    }
  }
  for (const status of PROPOSAL_STATUSES) {
    for (const trigger of Object.keys(PROPOSAL_TRANSITIONS) as ProposalTrigger[]) {
      try {
        checkProposalTransition(status, trigger);
      } catch (err) {
        out.add((err as Error).message);
      }
    }
  }
  return [...out];
}

const OTHER_MESSAGES = [
  'Task is done; self-check requires a task that is not done or closed',
  'Task is closed; marking criteria requires a task that is not closed',
  'Task is closed; check-in requires open, assigned, in_progress or to_verify',
  'Proposal is draft; create tasks requires approved',
  'Proposal is pending; create a report requires approved',
  'Idea is open; claim requires open',
  'Idea is elaborating; claim requires open',
  'Idea is open; release requires elaborating',
  'Idea is elaborated; assign requires open or elaborating',
  'Idea is open; start elaboration requires elaborating or elaborated',
  'Idea has a round awaiting answers; start elaboration requires every round answered',
  'Idea is open; answer requires elaborating or elaborated',
  'Idea has no round in pending_answers; answer requires a pending round',
  'Round is answered; answer requires pending_answers',
  'Idea is elaborated; validate elaboration requires elaborating',
  'Idea is elaborated; skip elaboration requires elaborating',
  'Session is closed; heartbeat requires active',
];

describe('state hints (docs/tool-conventions.md §1.5)', () => {
  it('gives every INVALID_STATE of the state machines and services a hint naming only catalogue tools', () => {
    const messages = [...stateMachineMessages(), ...OTHER_MESSAGES];
    expect(messages.length).toBeGreaterThan(40);
    for (const message of messages) {
      const hints = invalidStateHints(message);
      expect({ message, hints }).toEqual({ message, hints: expect.arrayContaining([expect.any(String)]) });
      const tools = toolsIn(hints);
      expect({ message, tools: tools.length > 0 }).toEqual({ message, tools: true });
      for (const t of tools) expect({ message, tool: t, known: TOOLS.has(t) }).toEqual({ message, tool: t, known: true });
    }
  });

  it('names the tool that moves the record on from its current status', () => {
    expect(invalidStateHints('Task is assigned; submit requires in_progress')).toEqual(['Start it first: svc_update_task with status in_progress (the assignee only)']);
    expect(invalidStateHints('Task is in_progress; verify requires to_verify')[0]).toContain('svc_submit_for_verify');
    expect(invalidStateHints('Task is to_verify; submit requires in_progress')[0]).toContain('svc_admin_verify_task');
    expect(invalidStateHints('Task is assigned to someone else; claim requires open')[0]).toContain('svc_get_available_tasks');
    expect(invalidStateHints('Proposal is draft; approve requires pending')[0]).toContain('svc_pm_submit_proposal');
    expect(invalidStateHints('Proposal is pending; submit requires draft')[0]).toContain('svc_admin_approve_proposal');
    expect(invalidStateHints('Idea is open; release requires elaborating')).toEqual(['Claim it first: svc_claim_idea (idea:write)']);
    expect(invalidStateHints('Session is closed; heartbeat requires active')[0]).toContain('svc_reopen_session');
  });

  it('gives no hints where nothing moves the record on or the message is unknown', () => {
    expect(invalidStateHints('Session is active; reopen requires closed')).toEqual([]);
    expect(invalidStateHints('Something else entirely')).toEqual([]);
    expect(new InvalidStateError('Session is active; reopen requires closed').extra).toEqual({});
    expect(new InvalidStateError('Task is open; release requires assigned').extra).toEqual({ hints: invalidStateHints('Task is open; release requires assigned') });
  });

  it('lists each blocker with its next step, capped, and the force option of a reopen', () => {
    const b = (i: number, status: string) => ({ uuid: `u${i}`, title: `T${i}`, status, assignee: null });
    expect(blockedHints([b(1, 'open'), b(2, 'to_verify')])).toEqual([
      'Prerequisite "T1" (u1) is open: it needs an assignee (svc_claim_task, or svc_pm_assign_task)',
      'Prerequisite "T2" (u2) is to_verify: it awaits verification (svc_admin_verify_task, task:admin; otherwise a human verifies it)',
      'Follow the prerequisites with svc_get_task; svc_get_available_tasks lists work you can start now',
    ]);
    const many = blockedHints(Array.from({ length: 12 }, (_, i) => b(i, 'in_progress')), { forceable: true });
    expect(many).toHaveLength(13);
    expect(many[10]).toBe('… and 2 more prerequisite(s)');
    expect(many[12]).toContain('force: true');
    const err = new BlockedError('Cannot move to in_progress: 1 prerequisite(s) not done or closed', [b(1, 'assigned')]);
    expect(Object.keys(err.extra)).toEqual(['blockers', 'hints']);
    for (const t of toolsIn(many)) expect(TOOLS.has(t)).toBe(true);
  });
});
