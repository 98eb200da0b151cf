import { randomUUID } from 'node:crypto';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { LONG_CONTENT } from '../factories/proposal.factory.js';
import { callTool } from '../utils/mcp-client.js';
import { refusal } from '../utils/mcp-expect.js';
import { draftProposal as draftThroughTools, proposalIn as proposalThroughTools } from '../utils/mcp-proposals.js';
import { userActor, World, type WorldAgent } from '../utils/world.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SUMMARY_KEYS = ['uuid', 'projectUuid', 'title', 'status', 'inputType', 'inputUuids', 'documentDraftCount', 'taskDraftCount', 'createdBy', 'reviewedBy', 'createdAt', 'updatedAt'];
const RECORD_KEYS = [...SUMMARY_KEYS, 'description', 'submittedAt', 'reviewNote', 'reviewedAt', 'references', 'section'];
const sorted = (keys: string[]) => [...keys].sort();

describe('proposal tools (e2e, official SDK client)', () => {
  let world: World;
  let events: RealtimeEvent[];
  let companyUuid: string;
  let project: string;
  // Company A: a pm, another user's pm, an admin and a developer agent; company B: its admin agent and project.
  let pm: WorldAgent;
  let otherPm: WorldAgent;
  let admin: WorldAgent;
  let developer: WorldAgent;
  let other: { companyUuid: string; project: string; admin: WorldAgent };

  beforeAll(async () => {
    world = await World.start();
    const a = await world.company();
    const ownerUser = await world.user(a.uuid, { name: 'Owner' });
    const colleague = await world.user(a.uuid, { name: 'Colleague' });
    companyUuid = a.uuid;
    project = await world.project(userActor(ownerUser));
    pm = await world.agent(a.uuid, ownerUser.uuid, { preset: 'pm_agent', name: 'PM' });
    otherPm = await world.agent(a.uuid, colleague.uuid, { preset: 'pm_agent', name: 'Other PM' });
    admin = await world.agent(a.uuid, ownerUser.uuid, { preset: 'admin_agent', name: 'Admin' });
    developer = await world.agent(a.uuid, ownerUser.uuid, { preset: 'developer_agent', name: 'Developer' });
    const b = await world.company();
    const outsider = userActor(await world.user(b.uuid, { name: 'Outsider' }));
    other = { companyUuid: b.uuid, project: await world.project(outsider), admin: await world.agent(b.uuid, outsider.uuid, { preset: 'admin_agent', name: 'Outsider admin' }) };
    events = world.recordEvents();
  });
  afterAll(async () => {
    await world?.close();
  });

  const takeEvents = (): RealtimeEvent[] => events.splice(0, events.length);
  const change = (entityType: RealtimeEvent['entityType'], entityUuid: string, action: RealtimeEvent['action'], projectUuid = project): RealtimeEvent => ({ companyUuid, projectUuid, entityType, entityUuid, action });
  /** A draft proposal of the pm built through the tools (it validates); the setup's events are discarded. */
  const draftProposal = async () => {
    const p = await draftThroughTools(world, pm, project);
    takeEvents();
    return p;
  };
  /** A proposal of the pm driven through the tools to `status`; the setup's events are discarded. */
  const proposalIn = async (status: 'draft' | 'pending' | 'approved' | 'closed') => {
    const p = await proposalThroughTools(world, status, { by: pm, admin, projectUuid: project });
    takeEvents();
    return p;
  };
  /** A resolved idea assigned to `agent` (a valid proposal input). */
  const readyIdea = (agent: WorldAgent, opts: { title?: string; isContainer?: boolean } = {}, projectUuid = project) => world.idea(agent.actor, projectUuid, { state: 'elaborated', ...opts });

  const row = async (uuid: string) => (await world.ds.query(`SELECT * FROM proposal WHERE uuid = $1`, [uuid]))[0];
  const activityCount = async () => (await world.ds.query(`SELECT count(*)::int AS n FROM activity`))[0].n;

  /** A refusal with this code and message that leaves the proposal row and the activity log as they were and publishes nothing. */
  async function refusedUnchanged(agent: WorldAgent, name: string, args: Record<string, unknown>, proposalUuid: string, code: string, message: string) {
    takeEvents();
    const [before, activities] = [await row(proposalUuid), await activityCount()];
    const error = await refusal(agent, name, args);
    expect({ code: error.code, message: error.message }).toEqual({ code, message });
    expect(await row(proposalUuid)).toEqual(before);
    expect(await activityCount()).toBe(activities);
    expect(takeEvents()).toEqual([]);
    return error;
  }

  describe('svc_get_proposals / svc_get_proposal (public reads)', () => {
    it('lists a project\'s proposals newest first with summaries, filters by status, and is visible to a developer', async () => {
      const first = await proposalIn('pending');
      const second = await draftProposal();
      const all = await world.ok(developer, 'svc_get_proposals', { projectUuid: project, pageSize: 100 });
      expect(Object.keys(all).sort()).toEqual(['page', 'pageSize', 'proposals', 'total']);
      const uuids = all.proposals.map((p: { uuid: string }) => p.uuid);
      expect(uuids.indexOf(second.uuid)).toBeLessThan(uuids.indexOf(first.uuid));
      expect(all.total).toBe(all.proposals.length);
      expect(sorted(Object.keys(all.proposals[0]))).toEqual(sorted(SUMMARY_KEYS));
      const s = all.proposals.find((p: { uuid: string }) => p.uuid === first.uuid);
      expect(s).toEqual({
        uuid: first.uuid, projectUuid: project, title: 'Checkout rework', status: 'pending', inputType: 'idea', inputUuids: [first.idea.uuid],
        documentDraftCount: 1, taskDraftCount: 2, createdBy: { type: 'agent', uuid: pm.uuid, name: 'PM' }, reviewedBy: null,
        createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
      });
      const pending = await world.ok(developer, 'svc_get_proposals', { projectUuid: project, status: 'pending', pageSize: 100 });
      expect(pending.proposals.every((p: { status: string }) => p.status === 'pending')).toBe(true);
      expect(pending.proposals.map((p: { uuid: string }) => p.uuid)).toContain(first.uuid);
      const paged = await world.ok(developer, 'svc_get_proposals', { projectUuid: project, pageSize: 1, page: 2 });
      expect(paged).toMatchObject({ page: 2, pageSize: 1, total: all.total, proposals: [{ uuid: uuids[1] }] });
    });

    it('answers NOT_FOUND for a missing or other-company project and VALIDATION_ERROR for bad arguments', async () => {
      for (const projectUuid of [randomUUID(), other.project]) {
        expect(await refusal(pm, 'svc_get_proposals', { projectUuid })).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
      }
      const bad = await refusal(pm, 'svc_get_proposals', { projectUuid: 'nope', status: 'open', pageSize: 101, colour: 'red' });
      expect(bad.code).toBe('VALIDATION_ERROR');
      expect(bad.message).toBe('Invalid arguments');
      expect((bad.details as Array<{ path: string }>).map((d) => d.path).sort()).toEqual(['colour', 'pageSize', 'projectUuid', 'status']);
    });

    it('returns one proposal with the chosen section', async () => {
      const p = await draftProposal();
      const basic = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid });
      expect(sorted(Object.keys(basic))).toEqual(sorted([...RECORD_KEYS, 'documentDraftIndex', 'taskDraftIndex']));
      expect(basic).toMatchObject({ section: 'basic', description: '', submittedAt: null, reviewNote: null, reviewedAt: null, references: [] });
      expect(basic.documentDraftIndex).toEqual([{ uuid: p.docDraft, type: 'tech_design', title: 'Design', contentLength: LONG_CONTENT.length }]);
      expect(basic.taskDraftIndex).toEqual([
        { uuid: p.taskDrafts.a, title: 'Task A', priority: 'high', storyPoints: null, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [] },
        { uuid: p.taskDrafts.b, title: 'Task B', priority: null, storyPoints: 3, acceptanceCriteriaCount: 2, dependsOnDraftUuids: [p.taskDrafts.a] },
      ]);
      const docs = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'documents' });
      expect(sorted(Object.keys(docs))).toEqual(sorted([...RECORD_KEYS, 'documentDrafts']));
      expect(docs.documentDrafts).toEqual([{ uuid: p.docDraft, type: 'tech_design', title: 'Design', content: LONG_CONTENT }]);
      const tasks = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'tasks' });
      expect(sorted(Object.keys(tasks))).toEqual(sorted([...RECORD_KEYS, 'taskDrafts']));
      expect(tasks.taskDrafts[1]).toEqual({
        uuid: p.taskDrafts.b, title: 'Task B', description: '', priority: null, storyPoints: 3,
        acceptanceCriteriaItems: [{ description: 'B works', required: true }, { description: 'B is fast', required: false }], dependsOnDraftUuids: [p.taskDrafts.a],
      });
      const full = await world.ok(developer, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'full' });
      expect(sorted(Object.keys(full))).toEqual(sorted([...RECORD_KEYS, 'documentDrafts', 'taskDrafts']));
      expect(await refusal(pm, 'svc_get_proposal', { proposalUuid: p.uuid, section: 'all' })).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'section' }] });
    });
  });

  describe('svc_pm_create_proposal', () => {
    it('creates an empty draft over assigned resolved ideas, publishes "proposal created", and warns about an idea already feeding another proposal', async () => {
      const idea = await readyIdea(pm, { title: 'Faster checkout' });
      const p = await world.ok(pm, 'svc_pm_create_proposal', {
        projectUuid: project, title: '  First  ', description: 'Why', inputType: 'idea', inputUuids: [idea.uuid],
        references: [{ type: 'docs', url: 'https://example.test/spec', title: 'Spec' }],
      });
      expect(p).toMatchObject({ title: 'First', status: 'draft', description: 'Why', inputUuids: [idea.uuid], documentDraftCount: 0, taskDraftCount: 0, section: 'basic', documentDraftIndex: [], taskDraftIndex: [] });
      expect(p.references).toEqual([expect.objectContaining({ targetType: 'proposal', targetUuid: p.uuid, url: 'https://example.test/spec' })]);
      expect(p.warnings).toBeUndefined();
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'created')]);

      const again = await world.ok(pm, 'svc_pm_create_proposal', { projectUuid: project, title: 'Second', inputType: 'idea', inputUuids: [idea.uuid] });
      expect(again.warnings).toEqual(['Idea "Faster checkout" already feeds proposal "First" (draft)']);
    });

    it('accepts documents as inputs', async () => {
      const doc = await world.domain.document(pm.actor, project);
      const p = await world.ok(pm, 'svc_pm_create_proposal', { projectUuid: project, title: 'From a doc', inputType: 'document', inputUuids: [doc.uuid] });
      expect(p).toMatchObject({ inputType: 'document', inputUuids: [doc.uuid], status: 'draft' });
    });

    it('refuses missing projects and inputs, other-company records, theme ideas and ideas not assigned to the caller, creating nothing', async () => {
      const [before] = await world.ds.query(`SELECT count(*)::int AS n FROM proposal`);
      takeEvents();
      const mine = await readyIdea(pm);
      const theme = await readyIdea(pm, { isContainer: true });
      const theirs = await readyIdea(otherPm);
      const foreign = await readyIdea(other.admin, {}, other.project);
      const base = { projectUuid: project, title: 'X', inputType: 'idea' };
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ ...base, projectUuid: other.project, inputUuids: [mine.uuid] }, 'NOT_FOUND', 'Project not found'],
        [{ ...base, inputUuids: [mine.uuid, randomUUID()] }, 'NOT_FOUND', 'Input idea not found'],
        [{ ...base, inputUuids: [foreign.uuid] }, 'NOT_FOUND', 'Input idea not found'],
        [{ ...base, inputType: 'document', inputUuids: [randomUUID()] }, 'NOT_FOUND', 'Input document not found'],
        [{ ...base, inputUuids: [theme.uuid] }, 'VALIDATION_ERROR', 'Container ideas cannot be proposal inputs; derive a child idea'],
        [{ ...base, inputUuids: [mine.uuid, theirs.uuid] }, 'FORBIDDEN', 'Input ideas must be assigned to you'],
        [{ ...base, inputUuids: [] }, 'VALIDATION_ERROR', 'Invalid arguments'],
        [{ ...base, inputType: 'task', inputUuids: [mine.uuid] }, 'VALIDATION_ERROR', 'Invalid arguments'],
      ];
      for (const [args, code, message] of cases) expect([args, await refusal(pm, 'svc_pm_create_proposal', args)]).toEqual([args, expect.objectContaining({ code, message })]);
      expect((await world.ds.query(`SELECT count(*)::int AS n FROM proposal`))[0]).toEqual(before);
      expect(takeEvents()).toEqual([]);
    });
  });

  describe('draft editing (any holder of proposal:write)', () => {
    it('adds document and task drafts, returning the draft uuid and publishing "proposal updated"', async () => {
      const p = await draftProposal();
      const d = await world.ok(otherPm, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'prd', title: 'Requirements', content: 'Short' });
      expect(d).toMatchObject({ uuid: p.uuid, draftUuid: expect.any(String), documentDraftCount: 2 });
      expect(d.documentDraftIndex[1]).toEqual({ uuid: d.draftUuid, type: 'prd', title: 'Requirements', contentLength: 5 });
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      const t = await world.ok(pm, 'svc_pm_add_task_draft', {
        proposalUuid: p.uuid, title: 'Task C', description: 'Third', priority: 'low', storyPoints: 1,
        acceptanceCriteriaItems: [{ description: ' C1 ' }, { description: '  ' }], dependsOnDraftUuids: [p.taskDrafts.a, p.taskDrafts.b],
      });
      expect(t.taskDraftIndex[2]).toEqual({ uuid: t.draftUuid, title: 'Task C', priority: 'low', storyPoints: 1, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [p.taskDrafts.a, p.taskDrafts.b] });
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
    });

    it('refuses task drafts without a real criterion or with unknown dependencies, and drafts beyond the limits', async () => {
      const p = await draftProposal();
      const base = { proposalUuid: p.uuid, title: 'T' };
      await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [{ description: '   ' }] }, p.uuid, 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
      const ghost = randomUUID();
      await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [{ description: 'ok' }], dependsOnDraftUuids: [ghost] }, p.uuid, 'VALIDATION_ERROR', `Unknown task draft ${ghost}`);
      const empty = await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [] }, p.uuid, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(empty.details).toEqual([{ path: 'acceptanceCriteriaItems', message: expect.any(String) }]);

      // Fill up to the limits directly, then one more through the tools.
      const docs = Array.from({ length: 20 }, () => ({ uuid: randomUUID(), type: 'spec', title: 'D', content: '' }));
      const tasks = Array.from({ length: 100 }, () => ({ uuid: randomUUID(), title: 'T', description: '', priority: null, storyPoints: null, acceptanceCriteriaItems: [{ description: 'x', required: true }], dependsOnDraftUuids: [] }));
      await world.ds.query(`UPDATE proposal SET document_drafts = $2::jsonb, task_drafts = $3::jsonb WHERE uuid = $1`, [p.uuid, JSON.stringify(docs), JSON.stringify(tasks)]);
      await refusedUnchanged(pm, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'spec', title: 'One more', content: '' }, p.uuid, 'VALIDATION_ERROR', 'A proposal can have at most 20 document drafts');
      await refusedUnchanged(pm, 'svc_pm_add_task_draft', { ...base, acceptanceCriteriaItems: [{ description: 'x' }] }, p.uuid, 'VALIDATION_ERROR', 'A proposal can have at most 100 task drafts');
    });

    it('updates document and task drafts; a given criteria or dependency list replaces the old one', async () => {
      const p = await draftProposal();
      const d = await world.ok(pm, 'svc_pm_update_document_draft', { proposalUuid: p.uuid, draftUuid: p.docDraft, title: 'Design v2', type: 'adr' });
      expect(d.documentDraftIndex).toEqual([{ uuid: p.docDraft, type: 'adr', title: 'Design v2', contentLength: LONG_CONTENT.length }]);
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      const t = await world.ok(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.b, storyPoints: null, acceptanceCriteriaItems: [{ description: 'Only this' }], dependsOnDraftUuids: [] });
      expect(t.taskDraftIndex[1]).toEqual({ uuid: p.taskDrafts.b, title: 'Task B', priority: null, storyPoints: null, acceptanceCriteriaCount: 1, dependsOnDraftUuids: [] });
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
    });

    it('refuses unknown drafts, empty updates, self and cyclic dependencies', async () => {
      const p = await draftProposal();
      const ghost = randomUUID();
      await refusedUnchanged(pm, 'svc_pm_update_document_draft', { proposalUuid: p.uuid, draftUuid: ghost, title: 'X' }, p.uuid, 'NOT_FOUND', 'Document draft not found');
      await refusedUnchanged(pm, 'svc_pm_update_document_draft', { proposalUuid: p.uuid, draftUuid: p.docDraft }, p.uuid, 'VALIDATION_ERROR', 'Nothing to update');
      await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: ghost, title: 'X' }, p.uuid, 'NOT_FOUND', 'Task draft not found');
      await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, dependsOnDraftUuids: [p.taskDrafts.a] }, p.uuid, 'VALIDATION_ERROR', 'A task draft cannot depend on itself');
      await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, dependsOnDraftUuids: [p.taskDrafts.b] }, p.uuid, 'VALIDATION_ERROR', 'Draft dependencies would create a cycle');
      await refusedUnchanged(pm, 'svc_pm_update_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a, acceptanceCriteriaItems: [{ description: '' }] }, p.uuid, 'VALIDATION_ERROR', 'At least one acceptance criterion with a non-empty description is required');
    });

    it('removes drafts (a task draft also from its siblings\' dependencies); an absent draft is a success that changes nothing', async () => {
      const p = await draftProposal();
      const t = await world.ok(pm, 'svc_pm_remove_task_draft', { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a });
      expect(t.taskDraftIndex).toEqual([expect.objectContaining({ uuid: p.taskDrafts.b, dependsOnDraftUuids: [] })]);
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      const d = await world.ok(pm, 'svc_pm_remove_document_draft', { proposalUuid: p.uuid, draftUuid: p.docDraft });
      expect(d.documentDraftIndex).toEqual([]);
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);

      const before = await row(p.uuid);
      const activities = await activityCount();
      for (const name of ['svc_pm_remove_task_draft', 'svc_pm_remove_document_draft']) {
        const same = await world.ok(pm, name, { proposalUuid: p.uuid, draftUuid: p.taskDrafts.a });
        expect(same.uuid).toBe(p.uuid);
      }
      expect(await row(p.uuid)).toEqual(before);
      expect(await activityCount()).toBe(activities);
      expect(takeEvents()).toEqual([]);
    });

    it('refuses every draft edit unless the proposal is a draft', async () => {
      const p = await proposalIn('pending');
      const pu = p.uuid;
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['svc_pm_add_document_draft', { proposalUuid: pu, type: 'spec', title: 'X', content: '' }, 'add a document draft'],
        ['svc_pm_add_task_draft', { proposalUuid: pu, title: 'X', acceptanceCriteriaItems: [{ description: 'x' }] }, 'add a task draft'],
        ['svc_pm_update_document_draft', { proposalUuid: pu, draftUuid: p.docDraft, title: 'X' }, 'update a document draft'],
        ['svc_pm_update_task_draft', { proposalUuid: pu, draftUuid: p.taskDrafts.a, title: 'X' }, 'update a task draft'],
        ['svc_pm_remove_document_draft', { proposalUuid: pu, draftUuid: p.docDraft }, 'remove a document draft'],
        ['svc_pm_remove_task_draft', { proposalUuid: pu, draftUuid: p.taskDrafts.a }, 'remove a task draft'],
      ];
      for (const [name, args, op] of cases) await refusedUnchanged(pm, name, args, pu, 'INVALID_STATE', `Proposal is pending; ${op} requires draft`);
    });
  });

  describe('svc_pm_validate_proposal / svc_pm_submit_proposal', () => {
    it('lists the issues of an incomplete proposal, and submission refuses it with PROPOSAL_INVALID and the same issues', async () => {
      const idea = await readyIdea(pm);
      const p = await world.ok(pm, 'svc_pm_create_proposal', { projectUuid: project, title: 'Empty', inputType: 'idea', inputUuids: [idea.uuid] });
      const v = await world.ok(pm, 'svc_pm_validate_proposal', { proposalUuid: p.uuid });
      expect(v.valid).toBe(false);
      expect(v.issues.filter((i: { level: string }) => i.level === 'error').map((i: { id: string }) => i.id)).toEqual(['E1', 'E3']);
      const error = await refusedUnchanged(pm, 'svc_pm_submit_proposal', { proposalUuid: p.uuid }, p.uuid, 'PROPOSAL_INVALID', 'Proposal validation failed');
      expect(error.issues).toEqual(v.issues);
    });

    it('submits a valid draft (draft -> pending) with "proposal updated", and refuses a second submission', async () => {
      const p = await draftProposal();
      expect(await world.ok(pm, 'svc_pm_validate_proposal', { proposalUuid: p.uuid })).toMatchObject({ valid: true });
      const s = await world.ok(pm, 'svc_pm_submit_proposal', { proposalUuid: p.uuid });
      expect(s).toMatchObject({ uuid: p.uuid, status: 'pending', submittedAt: expect.stringMatching(ISO), section: 'basic' });
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      const err = await refusedUnchanged(pm, 'svc_pm_submit_proposal', { proposalUuid: p.uuid }, p.uuid, 'INVALID_STATE', 'Proposal is pending; submit requires draft');
      // The hint names the review tools that move a pending proposal on (docs/tool-conventions.md §1.5).
      expect(err.hints).toEqual([expect.stringMatching(/svc_admin_approve_proposal.*proposal:admin.*svc_pm_reject_proposal/)]);
    });
  });

  describe('review: reject, close, approve, revoke', () => {
    it('reject: the creator sends a pending proposal back with a note; others are FORBIDDEN; a draft is INVALID_STATE', async () => {
      const p = await proposalIn('pending');
      await refusedUnchanged(otherPm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid, reviewNote: 'No' }, p.uuid, 'FORBIDDEN', "Only the proposal's creator or a holder of proposal:admin can reject it");
      const bad = await refusedUnchanged(pm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid }, p.uuid, 'VALIDATION_ERROR', 'Invalid arguments');
      expect(bad.details).toEqual([{ path: 'reviewNote', message: expect.any(String) }]);
      const r = await world.ok(pm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid, reviewNote: ' Needs a design ' });
      expect(r).toMatchObject({ status: 'draft', reviewNote: 'Needs a design', reviewedBy: { type: 'agent', uuid: pm.uuid, name: 'PM' }, reviewedAt: expect.stringMatching(ISO) });
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      await refusedUnchanged(pm, 'svc_pm_reject_proposal', { proposalUuid: p.uuid, reviewNote: 'Again' }, p.uuid, 'INVALID_STATE', 'Proposal is draft; reject requires pending');
    });

    it('close: an admin closes a pending proposal for good (pending -> closed); the tool is hidden from a pm agent', async () => {
      const p = await proposalIn('pending');
      await expect(pm.client.callTool({ name: 'svc_admin_close_proposal', arguments: { proposalUuid: p.uuid, reviewNote: 'x' } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: svc_admin_close_proposal'),
      });
      const c = await world.ok(admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Out of scope' });
      expect(c).toMatchObject({ status: 'closed', reviewNote: 'Out of scope', reviewedBy: { type: 'agent', uuid: admin.uuid, name: 'Admin' } });
      expect(sorted(Object.keys(c))).toEqual(sorted([...RECORD_KEYS, 'documentDraftIndex', 'taskDraftIndex']));
      expect(takeEvents()).toEqual([change('proposal', p.uuid, 'updated')]);
      await refusedUnchanged(admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Again' }, p.uuid, 'INVALID_STATE', 'Proposal is closed; close requires pending');
    });

    it('approve: exactly one "proposal updated" plus one "task created" per task on the bus, materialising drafts', async () => {
      const p = await proposalIn('pending');
      const r = await world.ok(admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid, reviewNote: 'Ship it' });
      expect(Object.keys(r).sort()).toEqual(['materializedDocuments', 'materializedTasks', 'proposal']);
      expect(r.proposal).toMatchObject({ uuid: p.uuid, status: 'approved', reviewNote: 'Ship it', section: 'basic' });
      expect(r.materializedTasks).toEqual([
        { draftUuid: p.taskDrafts.a, taskUuid: expect.any(String), title: 'Task A' },
        { draftUuid: p.taskDrafts.b, taskUuid: expect.any(String), title: 'Task B' },
      ]);
      expect(r.materializedDocuments).toEqual([{ draftUuid: p.docDraft, documentUuid: expect.any(String), title: 'Design' }]);
      expect(takeEvents()).toEqual([
        change('proposal', p.uuid, 'updated'),
        ...r.materializedTasks.map((t: { taskUuid: string }) => change('task', t.taskUuid, 'created')),
      ]);
      const tasks = await world.ds.query(`SELECT status, proposal_uuid FROM task WHERE proposal_uuid = $1`, [p.uuid]);
      expect(tasks).toEqual([{ status: 'open', proposal_uuid: p.uuid }, { status: 'open', proposal_uuid: p.uuid }]);
      await refusedUnchanged(admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid }, p.uuid, 'INVALID_STATE', 'Proposal is approved; approve requires pending');
      const draft = await draftProposal();
      await refusedUnchanged(admin, 'svc_admin_approve_proposal', { proposalUuid: draft.uuid }, draft.uuid, 'INVALID_STATE', 'Proposal is draft; approve requires pending');
    });

    it('revoke: the creator withdraws an approved proposal, closing its tasks and deleting its documents, with their events', async () => {
      const p = await proposalIn('approved');
      const tasks: Array<{ uuid: string; title: string }> = await world.ds.query(`SELECT uuid, title FROM task WHERE proposal_uuid = $1 ORDER BY created_at, uuid`, [p.uuid]);
      const docs: Array<{ uuid: string; title: string }> = await world.ds.query(`SELECT uuid, title FROM document WHERE proposal_uuid = $1`, [p.uuid]);
      expect([tasks.length, docs.length]).toEqual([2, 1]);
      await refusedUnchanged(otherPm, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid }, p.uuid, 'FORBIDDEN', "Only the proposal's creator or a holder of proposal:admin can revoke it");
      const r = await world.ok(pm, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid, reviewNote: 'Wrong approach' });
      expect(Object.keys(r).sort()).toEqual(['closedTasks', 'deletedDocuments', 'proposal']);
      expect(r.proposal).toMatchObject({ uuid: p.uuid, status: 'draft', reviewNote: 'Wrong approach' });
      expect(r.closedTasks).toEqual(tasks);
      expect(r.deletedDocuments).toEqual(docs);
      const events = takeEvents();
      expect(events[0]).toEqual(change('proposal', p.uuid, 'updated'));
      expect(events.slice(1)).toEqual(expect.arrayContaining([...tasks.map((t) => change('task', t.uuid, 'updated')), change('document', docs[0].uuid, 'deleted')]));
      expect(events).toHaveLength(1 + tasks.length + docs.length);
      expect(await world.ds.query(`SELECT DISTINCT status FROM task WHERE proposal_uuid = $1`, [p.uuid])).toEqual([{ status: 'closed' }]);
      expect(await world.ds.query(`SELECT uuid FROM document WHERE proposal_uuid = $1`, [p.uuid])).toEqual([]);
      const err = await refusedUnchanged(pm, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid }, p.uuid, 'INVALID_STATE', 'Proposal is draft; revoke requires approved');
      expect(err.hints).toEqual(['Submit it for review: svc_pm_submit_proposal (check it first with svc_pm_validate_proposal)']);
    });

    it('revoke: a holder of proposal:admin may revoke another agent\'s proposal', async () => {
      const p = await proposalIn('approved');
      expect(await world.ok(admin, 'svc_pm_revoke_proposal', { proposalUuid: p.uuid })).toMatchObject({ proposal: { status: 'draft', reviewNote: null } });
    });
  });

  it('answers NOT_FOUND "Proposal not found" for a missing or other-company proposal on every proposal tool', async () => {
    const foreign = (await world.ds.query(
      `INSERT INTO proposal (uuid, company_uuid, project_uuid, title, description, input_type, input_uuids, status, document_drafts, task_drafts, created_by_type, created_by_uuid)
       VALUES (gen_random_uuid(), $1, $2, 'Foreign', '', 'idea', '{}', 'pending', '[]', '[]', 'agent', $3) RETURNING uuid`,
      [other.companyUuid, other.project, other.admin.uuid],
    ))[0].uuid as string;
    const draftUuid = randomUUID();
    const cases: Array<[WorldAgent, string, Record<string, unknown>]> = [
      [admin, 'svc_get_proposal', {}],
      [admin, 'svc_pm_validate_proposal', {}],
      [admin, 'svc_pm_submit_proposal', {}],
      [admin, 'svc_pm_add_document_draft', { type: 'spec', title: 'X', content: '' }],
      [admin, 'svc_pm_add_task_draft', { title: 'X', acceptanceCriteriaItems: [{ description: 'x' }] }],
      [admin, 'svc_pm_update_document_draft', { draftUuid, title: 'X' }],
      [admin, 'svc_pm_update_task_draft', { draftUuid, title: 'X' }],
      [admin, 'svc_pm_remove_document_draft', { draftUuid }],
      [admin, 'svc_pm_remove_task_draft', { draftUuid }],
      [admin, 'svc_pm_reject_proposal', { reviewNote: 'x' }],
      [admin, 'svc_pm_revoke_proposal', {}],
      [admin, 'svc_admin_approve_proposal', {}],
      [admin, 'svc_admin_close_proposal', { reviewNote: 'x' }],
    ];
    takeEvents();
    for (const proposalUuid of [foreign, randomUUID()]) {
      for (const [agent, name, args] of cases) {
        const res = await callTool(agent.client, name, { proposalUuid, ...args });
        expect([name, res]).toEqual([name, { isError: true, data: { error: { code: 'NOT_FOUND', message: 'Proposal not found' } } }]);
      }
    }
    expect((await row(foreign)).status).toBe('pending');
    expect(takeEvents()).toEqual([]);
  });
});
