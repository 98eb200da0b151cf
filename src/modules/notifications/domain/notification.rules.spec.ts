import type { DomainEventName } from '../../../shared/events/domain-events.js';
import { messageFor, NOTIFYING_EVENTS, planNotifications, PREFERENCE_OF, recipientsFor, type Candidate, type Ref } from './notification.rules.js';

const u = (n: number): Ref => ({ type: 'user', uuid: `0000000${n}-0000-4000-8000-000000000000` });
const a = (n: number): Ref => ({ type: 'agent', uuid: `a000000${n}-0000-4000-8000-000000000000` });
const entity = { type: 'task' as const, uuid: 'e0000000-0000-4000-8000-000000000000', title: 'T', projectUuid: 'p0000000-0000-4000-8000-000000000000' };
const everyone = { isArchivedAgent: () => false, wants: () => true };

describe('NOTIFYING_EVENTS (§4.1)', () => {
  it.each<[DomainEventName, string]>([
    ['task.assigned', 'task_assigned'],
    ['task.status_changed', 'task_status_changed'],
    ['task.submitted', 'task_submitted_for_verify'],
    ['task.verified', 'task_verified'],
    ['task.reopened', 'task_reopened'],
    ['proposal.submitted', 'proposal_submitted'],
    ['proposal.approved', 'proposal_approved'],
    ['proposal.rejected', 'proposal_rejected'],
    ['idea.assigned', 'idea_claimed'],
    ['comment.added', 'comment_added'],
    ['idea.elaboration_started', 'elaboration_requested'],
    ['idea.elaboration_answered', 'elaboration_answered'],
    ['idea.elaboration_resolved', 'elaboration_resolved'],
    ['idea.elaboration_skipped', 'elaboration_resolved'],
  ])('%s → %s', (name, want) => {
    expect(NOTIFYING_EVENTS[name]).toBe(want);
  });

  it.each<DomainEventName>([
    'task.released',
    'task.closed',
    'proposal.revoked',
    'idea.edited',
    'task.created',
    'task.deleted',
    'idea.moved',
    'reference.added',
    'task.session_checkin',
    'document.report_created',
    'text.written',
    'mention.created',
  ])('%s notifies nobody', (name) => {
    expect(NOTIFYING_EVENTS[name]).toBeUndefined();
  });

  it('maps the elaboration results and submissions to their preference fields', () => {
    expect(PREFERENCE_OF.task_submitted_for_verify).toBe('taskVerified');
    expect(PREFERENCE_OF.elaboration_resolved).toBe('elaborationAnswered');
  });
});

describe('recipientsFor (§4.2)', () => {
  const facts = { creator: u(1), assignee: a(2), inputIdeaCreators: [u(3), u(4)] };
  it.each([
    ['task_assigned', 'task', [a(2)]],
    ['task_status_changed', 'task', [a(2), u(1)]],
    ['task_submitted_for_verify', 'task', [u(1), u(9)]],
    ['task_verified', 'task', [a(2)]],
    ['task_reopened', 'task', [a(2)]],
    ['proposal_submitted', 'proposal', [u(9), u(3), u(4)]],
    ['proposal_approved', 'proposal', [u(1)]],
    ['proposal_rejected', 'proposal', [u(1)]],
    ['idea_claimed', 'idea', [a(2), u(1)]],
    ['comment_added', 'task', [a(2), u(1)]],
    ['comment_added', 'idea', [a(2), u(1)]],
    ['comment_added', 'proposal', [u(1)]],
    ['comment_added', 'document', [u(1)]],
    ['elaboration_requested', 'idea', [u(1), u(9)]],
    ['elaboration_answered', 'idea', [a(2), u(1)]],
    ['elaboration_resolved', 'idea', [a(2), u(1)]],
  ] as const)('%s on %s', (action, type, want) => {
    expect(recipientsFor(action, type, facts, u(9))).toEqual(want);
  });

  it('a user actor has no owner; a missing assignee is nobody', () => {
    expect(recipientsFor('task_submitted_for_verify', 'task', { creator: u(1), assignee: null }, null)).toEqual([u(1)]);
    expect(recipientsFor('task_assigned', 'task', { creator: u(1), assignee: null }, null)).toEqual([]);
  });
});

describe('messageFor (§4.4)', () => {
  const c = { actorName: 'Ann', title: 'Build it' };
  it.each([
    ['task_assigned', c, 'Ann assigned you to task "Build it"'],
    ['task_status_changed', { ...c, status: 'in_progress' }, 'Ann moved task "Build it" to in_progress'],
    ['task_submitted_for_verify', c, 'Ann submitted task "Build it" for verification'],
    ['task_verified', c, 'Task "Build it" has been verified'],
    ['task_reopened', c, 'Task "Build it" has been reopened'],
    ['proposal_submitted', c, 'Ann submitted proposal "Build it" for review'],
    ['proposal_approved', c, 'Proposal "Build it" has been approved'],
    ['proposal_approved', { ...c, reviewNote: 'ship' }, 'Proposal "Build it" has been approved. Note: ship'],
    ['proposal_rejected', { ...c, reviewNote: 'too big' }, 'Proposal "Build it" was sent back to draft. Reason: too big'],
    ['idea_claimed', c, 'Ann claimed idea "Build it"'],
    ['comment_added', c, 'Ann commented on "Build it"'],
    ['elaboration_requested', c, 'Ann asked questions about idea "Build it"'],
    ['elaboration_answered', c, 'Ann answered questions about idea "Build it"'],
    ['elaboration_resolved', c, 'Ann resolved the elaboration of idea "Build it"'],
    ['mentioned', { ...c, snippet: 'hey @Bob' }, 'Ann mentioned you: "hey @Bob"'],
  ] as const)('%s', (action, ctx, want) => {
    expect(messageFor(action, ctx)).toBe(want);
  });
});

describe('planNotifications (§4.3)', () => {
  const cand = (o: Partial<Candidate>): Candidate => ({ action: 'task_status_changed', recipients: [], entity, message: 'm', commentUuid: null, ...o });

  it('de-duplicates within a category and never notifies the actor', () => {
    const out = planNotifications([cand({ recipients: [u(1), u(1), u(2)] })], { ...everyone, actor: u(2) });
    expect(out.map((p) => p.recipient)).toEqual([u(1)]);
  });

  it('notifies the owner of an acting agent (a different person)', () => {
    const out = planNotifications([cand({ action: 'task_submitted_for_verify', recipients: [a(1), u(1)] })], { ...everyone, actor: a(1) });
    expect(out.map((p) => p.recipient)).toEqual([u(1)]);
  });

  it('drops archived agents', () => {
    const out = planNotifications([cand({ recipients: [a(1), a(2)] })], { ...everyone, actor: u(9), isArchivedAgent: (r) => r.uuid === a(1).uuid });
    expect(out.map((p) => p.recipient)).toEqual([a(2)]);
  });

  it('mentioned beats comment_added for the same comment, before preferences', () => {
    const comment = cand({ action: 'comment_added', recipients: [u(1), u(2)], commentUuid: 'c1' });
    const mention = cand({ action: 'mentioned', recipients: [u(1)], commentUuid: 'c1' });
    const other = cand({ action: 'mentioned', recipients: [u(2)], commentUuid: 'c2' });
    expect(planNotifications([comment, mention, other], { ...everyone, actor: u(9) }).map((p) => [p.action, p.recipient])).toEqual([
      ['comment_added', u(2)],
      ['mentioned', u(1)],
      ['mentioned', u(2)],
    ]);
    // u(1) muted mentions: step 4 already removed the comment notification, so u(1) gets nothing.
    const muted = planNotifications([comment, mention], { ...everyone, actor: u(9), wants: (r, f) => !(r.uuid === u(1).uuid && f === 'mentioned') });
    expect(muted.map((p) => [p.action, p.recipient])).toEqual([['comment_added', u(2)]]);
  });

  it('a task-description mention does not cancel a comment notification', () => {
    const comment = cand({ action: 'comment_added', recipients: [u(1)], commentUuid: 'c1' });
    const mention = cand({ action: 'mentioned', recipients: [u(1)], commentUuid: null });
    expect(planNotifications([comment, mention], { ...everyone, actor: u(9) })).toHaveLength(2);
  });

  it('applies the preference of the category only', () => {
    const out = planNotifications([cand({ action: 'task_assigned', recipients: [u(1)] }), cand({ recipients: [u(1)] })], {
      ...everyone,
      actor: u(9),
      wants: (_r, f) => f !== 'taskAssigned',
    });
    expect(out.map((p) => p.action)).toEqual(['task_status_changed']);
  });

  it('gives one row per (recipient, category, entity)', () => {
    const out = planNotifications([cand({ recipients: [u(1)] }), cand({ recipients: [u(1)] })], { ...everyone, actor: u(9) });
    expect(out).toHaveLength(1);
  });
});
