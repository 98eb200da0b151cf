import { randomUUID } from 'node:crypto';
import { ElaborationService, IdeaService, type QuestionInput } from '../../src/modules/ideas/index.js';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { MutationCommitted } from '../../src/shared/event-bus/events.js';
import { question } from '../factories/domain.factory.js';
import { expectIdeaRefused } from '../utils/expect-error.js';
import { userActor, World } from '../utils/world.js';

let world: World;
let ideas: IdeaService;
let elaboration: ElaborationService;
/** Alice and Bob of one company; pm (pm_agent) and dev (developer_agent) are Alice's agents, pm2 (pm_agent) and admin (admin_agent) Bob's. */
let alice: Actor;
let bob: Actor;
let pm: Actor;
let pm2: Actor;
let dev: Actor;
let admin: Actor;
let projectUuid: string;
/** What each committed mutation recorded. */
const mutations: MutationCommitted[] = [];

beforeAll(async () => {
  world = await World.database();
  ideas = world.get(IdeaService);
  elaboration = world.get(ElaborationService);
  world.h.onCommitted((m) => {
    mutations.push(m);
  });
  const a = (await world.company()).uuid;
  const aliceU = await world.user(a, { name: 'Alice' });
  const bobU = await world.user(a, { name: 'Bob' });
  [alice, bob] = [userActor(aliceU), userActor(bobU)];
  pm = (await world.agent(a, aliceU.uuid, { preset: 'pm_agent', name: 'PM' })).actor;
  pm2 = (await world.agent(a, bobU.uuid, { preset: 'pm_agent', name: 'PM2' })).actor;
  dev = (await world.agent(a, aliceU.uuid, { preset: 'developer_agent', name: 'Dev' })).actor;
  admin = (await world.agent(a, bobU.uuid, { preset: 'admin_agent', name: 'Admin' })).actor;
  projectUuid = (await world.domain.project(alice)).uuid;
});
afterAll(() => world.close());
beforeEach(() => {
  world.h.takeEvents();
  mutations.length = 0;
});

const refused = (call: () => Promise<unknown>, code: string, message?: string): Promise<void> => expectIdeaRefused(world, call, code, message);
const activities = (targetUuid: string): Promise<Array<{ action: string; project_uuid: string; value: Record<string, unknown> | null; actor_uuid: string }>> =>
  world.ds.query(`SELECT action, project_uuid, value, actor_uuid FROM activity WHERE target_uuid = $1 ORDER BY created_at ASC, uuid ASC`, [targetUuid]);

const updated = (uuid: string): Record<string, string> => ({ companyUuid: alice.companyUuid, projectUuid, entityType: 'idea', entityUuid: uuid, action: 'updated' });
const twoQuestions: QuestionInput[] = [question('q1'), question('q2', { category: 'scope', required: true }), question('opt', { required: false })];

describe('start (svc_pm_start_elaboration)', () => {
  it('elaborating: the assignee opens round 1 (pending_answers), depth stored, activity and event', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    world.h.takeEvents();
    const state = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'comprehensive', questions: twoQuestions });
    expect(state).toEqual({
      ideaUuid: idea.uuid,
      ideaStatus: 'elaborating',
      depth: 'comprehensive',
      status: 'pending_answers',
      rounds: [
        {
          uuid: expect.any(String),
          roundNumber: 1,
          status: 'pending_answers',
          depth: 'comprehensive',
          isAppended: false,
          createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' },
          answeredAt: null,
          createdAt: expect.any(String),
          questions: [
            {
              uuid: expect.any(String),
              questionId: 'q1',
              text: 'Question q1?',
              category: 'functional',
              options: [
                { id: 'a', label: 'Option A', description: null },
                { id: 'b', label: 'Option B', description: 'the other one' },
              ],
              required: true,
              answer: null,
            },
            expect.objectContaining({ questionId: 'q2', category: 'scope', required: true }),
            expect.objectContaining({ questionId: 'opt', required: false }),
          ],
        },
      ],
      summary: { totalQuestions: 3, answeredQuestions: 0, pendingRoundUuid: state.rounds[0].uuid },
    });
    expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
    expect((await activities(idea.uuid)).at(-1)).toEqual({
      action: 'elaboration_started',
      project_uuid: projectUuid,
      value: { roundUuid: state.rounds[0].uuid, roundNumber: 1, depth: 'comprehensive', questionCount: 3, isAppended: false },
      actor_uuid: pm.uuid,
    });
    expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('human_conduct_required');
  });

  it('a holder of idea:admin and any user may start for someone else; other agents are FORBIDDEN', async () => {
    const a = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const b = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    expect((await elaboration.start(admin, { ideaUuid: a.uuid, depth: 'minimal', questions: [question()] })).rounds).toHaveLength(1);
    expect((await elaboration.start(bob, { ideaUuid: b.uuid, depth: 'minimal', questions: [question()] })).rounds).toHaveLength(1);
    const c = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    await refused(() => elaboration.start(pm2, { ideaUuid: c.uuid, depth: 'minimal', questions: [question()] }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
    await refused(() => elaboration.start(dev, { ideaUuid: c.uuid, depth: 'minimal', questions: [question()] }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
    // The owner user of the assignee agent is the assignee by the identity rule (and a user anyway).
    expect((await elaboration.start(alice, { ideaUuid: c.uuid, depth: 'minimal', questions: [question()] })).rounds).toHaveLength(1);
  });

  it('refuses an open idea, a round still awaiting answers and an 11th round', async () => {
    const open = await world.domain.idea(alice, projectUuid);
    await refused(() => elaboration.start(pm, { ideaUuid: open.uuid, depth: 'minimal', questions: [question()] }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
    await refused(() => elaboration.start(alice, { ideaUuid: open.uuid, depth: 'minimal', questions: [question()] }), 'INVALID_STATE', 'Idea is open; start elaboration requires elaborating or elaborated');
    const pending = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
    await refused(() => elaboration.start(pm, { ideaUuid: pending.uuid, depth: 'minimal', questions: [question('z')] }), 'INVALID_STATE', 'Idea has a round awaiting answers; start elaboration requires every round answered');
    const appended = await world.domain.idea(alice, projectUuid, { state: 'appended', assignee: pm });
    await refused(() => elaboration.start(pm, { ideaUuid: appended.uuid, depth: 'minimal', questions: [question('z')] }), 'INVALID_STATE', 'Idea has a round awaiting answers; start elaboration requires every round answered');

    const busy = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    for (let i = 1; i <= 10; i++) {
      await elaboration.start(pm, { ideaUuid: busy.uuid, depth: 'minimal', questions: [question(`r${i}`)] });
      await elaboration.answer(alice, { ideaUuid: busy.uuid, answers: [{ questionId: `r${i}`, selectedOptionId: 'b' }] });
    }
    const state = await elaboration.getState(alice, { ideaUuid: busy.uuid });
    expect(state.rounds.map((r) => r.roundNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await refused(() => elaboration.start(pm, { ideaUuid: busy.uuid, depth: 'minimal', questions: [question('r11')] }), 'VALIDATION_ERROR', 'Maximum 10 elaboration rounds per idea');
  });

  it('elaborated: appends a round, keeps the idea resolved and its depth', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
    world.h.takeEvents();
    const state = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'comprehensive', questions: [question('late')] });
    expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved', depth: 'standard' });
    expect(state.rounds[1]).toMatchObject({ roundNumber: 2, isAppended: true, status: 'pending_answers', depth: 'comprehensive' });
    expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_started', value: { isAppended: true, roundNumber: 2 } });
    expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('human_conduct_required');
  });

  it('rejects malformed rounds: counts, categories, duplicates, depth', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const start = (questions: QuestionInput[], depth = 'standard') => () => elaboration.start(pm, { ideaUuid: idea.uuid, depth, questions });
    await refused(start([]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start(Array.from({ length: 16 }, (_, i) => question(`q${i}`))), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('q', { options: [{ id: 'only', label: 'One' }] })]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('q', { options: Array.from({ length: 6 }, (_, i) => ({ id: `o${i}`, label: `O${i}` })) })]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('q', { category: 'mood' })]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('q', { text: '  ' })]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('q', { id: 'x'.repeat(51) })]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('q')], 'deep'), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(start([question('dup'), question('dup')]), 'VALIDATION_ERROR', 'Duplicate question id dup');
    await refused(start([question('q', { options: [{ id: 'a', label: 'A' }, { id: 'a', label: 'B' }] })]), 'VALIDATION_ERROR', 'Duplicate option id a in question q');
  });
});

describe('answer (svc_answer_elaboration)', () => {
  it('stores answers from any caller; the round closes once every required question is answered', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const started = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'standard', questions: twoQuestions });
    world.h.takeEvents();
    const partial = await elaboration.answer(bob, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'b', customText: '  because  ' }] });
    expect(partial).toMatchObject({ status: 'pending_answers', summary: { answeredQuestions: 1, pendingRoundUuid: started.rounds[0].uuid } });
    expect(partial.rounds[0].questions[0].answer).toEqual({ selectedOptionId: 'b', customText: 'because', answeredAt: expect.any(String), answeredBy: { type: 'user', uuid: bob.uuid, name: 'Bob' } });
    expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_answered', actor_uuid: bob.uuid, value: { roundNumber: 1, questionIds: ['q1'], roundAnswered: false } });

    const done = await elaboration.answer(dev, { ideaUuid: idea.uuid, roundUuid: started.rounds[0].uuid, answers: [{ questionId: 'q2', selectedOptionId: null, customText: 'free text' }] });
    expect(done).toMatchObject({ ideaStatus: 'elaborating', status: 'validating', summary: { totalQuestions: 3, answeredQuestions: 2, pendingRoundUuid: null } });
    expect(done.rounds[0]).toMatchObject({ status: 'answered', answeredAt: expect.any(String) });
    expect(done.rounds[0].questions[2].answer).toBeNull();
    expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_answered', value: { questionIds: ['q2'], roundAnswered: true } });
    expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('in_progress');
  });

  it('an appended round answered on an elaborated idea leaves it resolved', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'appended', assignee: pm });
    const state = await elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'more', selectedOptionId: 'a' }] });
    expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved' });
    expect(state.rounds[1].status).toBe('answered');
    expect((await ideas.get(alice, { ideaUuid: idea.uuid })).derivedStatus).toBe('in_progress');
  });

  it('refuses unknown rounds, answered rounds, no pending round, and invalid answers', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    await refused(() => elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'INVALID_STATE', 'Idea has no round in pending_answers; answer requires a pending round');
    const s1 = await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'minimal', questions: [question('q1')] });
    await elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] });
    await refused(() => elaboration.answer(alice, { ideaUuid: idea.uuid, roundUuid: s1.rounds[0].uuid, answers: [{ questionId: 'q1', selectedOptionId: 'b' }] }), 'INVALID_STATE', 'Round is answered; answer requires pending_answers');
    await elaboration.start(pm, { ideaUuid: idea.uuid, depth: 'minimal', questions: [question('q9')] });
    const otherIdea = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
    const otherRound = (await elaboration.getState(alice, { ideaUuid: otherIdea.uuid })).rounds[0].uuid;
    const answer = (answers: unknown, roundUuid?: string) => () => elaboration.answer(alice, { ideaUuid: idea.uuid, roundUuid, answers: answers as never });
    await refused(answer([{ questionId: 'q9', selectedOptionId: 'a' }], randomUUID()), 'NOT_FOUND', 'Round not found');
    await refused(answer([{ questionId: 'q1', selectedOptionId: 'a' }], otherRound), 'NOT_FOUND', 'Round not found');
    await refused(answer([{ questionId: 'q1', selectedOptionId: 'a' }]), 'VALIDATION_ERROR', 'Unknown question q1');
    await refused(answer([{ questionId: 'q9', selectedOptionId: 'zz' }]), 'VALIDATION_ERROR', 'Unknown option zz for question q9');
    await refused(answer([{ questionId: 'q9', selectedOptionId: null, customText: '   ' }]), 'VALIDATION_ERROR', 'Question q9 needs an option or a non-empty customText');
    await refused(answer([{ questionId: 'q9' }]), 'VALIDATION_ERROR', 'Question q9 needs an option or a non-empty customText');
    await refused(answer([{ questionId: 'q9', customText: 'x'.repeat(5001) }]), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(answer([]), 'VALIDATION_ERROR', 'Invalid arguments');
    // A valid answer next to an invalid one writes nothing either.
    await refused(answer([{ questionId: 'q9', selectedOptionId: 'a' }, { questionId: 'nope', selectedOptionId: 'a' }]), 'VALIDATION_ERROR', 'Unknown question nope');
  });

  it('refuses answers on an idea that was released (open) even with a round left pending', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
    await ideas.release(pm, { ideaUuid: idea.uuid });
    await refused(() => elaboration.answer(alice, { ideaUuid: idea.uuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] }), 'INVALID_STATE', 'Idea is open; answer requires elaborating or elaborated');
  });
});

describe('validate / resolve (svc_pm_validate_elaboration)', () => {
  it('elaborating with every round answered -> elaborated, resolved', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'validating', assignee: pm });
    world.h.takeEvents();
    const state = await elaboration.validate(admin, { ideaUuid: idea.uuid });
    expect(state).toMatchObject({ ideaStatus: 'elaborated', status: 'resolved', depth: 'standard' });
    expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_resolved', actor_uuid: admin.uuid, value: { rounds: 1 } });
    const viaRest = await world.domain.idea(alice, projectUuid, { state: 'validating', assignee: pm });
    expect((await elaboration.resolve(bob, { ideaUuid: viaRest.uuid })).ideaStatus).toBe('elaborated');
  });

  it('refuses without rounds, with rounds awaiting answers and outside elaborating', async () => {
    const none = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    await refused(() => elaboration.validate(admin, { ideaUuid: none.uuid }), 'VALIDATION_ERROR', 'The idea has no elaboration rounds');
    const pending = await world.domain.idea(alice, projectUuid, { state: 'pending_answers', assignee: pm });
    await refused(() => elaboration.validate(admin, { ideaUuid: pending.uuid }), 'VALIDATION_ERROR', '1 round(s) still await answers');
    const open = await world.domain.idea(alice, projectUuid);
    await refused(() => elaboration.validate(admin, { ideaUuid: open.uuid }), 'INVALID_STATE', 'Idea is open; validate elaboration requires elaborating');
    const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
    await refused(() => elaboration.validate(admin, { ideaUuid: elaborated.uuid }), 'INVALID_STATE', 'Idea is elaborated; validate elaboration requires elaborating');
    await refused(() => elaboration.validate(admin, { ideaUuid: randomUUID() }), 'NOT_FOUND', 'Idea not found');
  });
});

describe('skip (svc_pm_skip_elaboration)', () => {
  it('elaborating -> elaborated with depth minimal and the reason on the activity', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    world.h.takeEvents();
    const state = await elaboration.skip(pm, { ideaUuid: idea.uuid, reason: '  Agreed in chat  ' });
    expect(state).toMatchObject({ ideaStatus: 'elaborated', depth: 'minimal', status: 'resolved', rounds: [] });
    expect(world.h.takeEvents()).toEqual([updated(idea.uuid)]);
    expect((await activities(idea.uuid)).at(-1)).toMatchObject({ action: 'elaboration_skipped', value: { reason: 'Agreed in chat' } });
    for (const actor of [admin, bob]) {
      const other = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
      expect((await elaboration.skip(actor, { ideaUuid: other.uuid, reason: 'ok' })).ideaStatus).toBe('elaborated');
    }
  });

  it('refuses other agents, non-elaborating ideas and bad reasons', async () => {
    const idea = await world.domain.idea(alice, projectUuid, { state: 'elaborating', assignee: pm });
    const elaborated = await world.domain.idea(alice, projectUuid, { state: 'elaborated', assignee: pm });
    await refused(() => elaboration.skip(pm2, { ideaUuid: idea.uuid, reason: 'r' }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
    await refused(() => elaboration.skip(pm2, { ideaUuid: elaborated.uuid, reason: 'r' }), 'FORBIDDEN', 'Only the assignee can elaborate this idea');
    await refused(() => elaboration.skip(pm, { ideaUuid: elaborated.uuid, reason: 'r' }), 'INVALID_STATE', 'Idea is elaborated; skip elaboration requires elaborating');
    await refused(() => elaboration.skip(pm, { ideaUuid: idea.uuid, reason: '   ' }), 'VALIDATION_ERROR', 'Invalid arguments');
    await refused(() => elaboration.skip(pm, { ideaUuid: idea.uuid, reason: 'x'.repeat(2001) }), 'VALIDATION_ERROR', 'Invalid arguments');
  });
});
