import { LONG_CONTENT } from '../factories/proposal.factory.js';
import type { World, WorldAgent } from './world.js';

/** Proposals built through the proposal tools, for the MCP e2e suites that start from one. */

/**
 * A draft proposal built through the tools by `agent` over one fresh resolved idea assigned to it (seeded): one
 * document draft and two task drafts (B depends on A) — it validates. The caller discards the events it published.
 */
export async function draftProposal(world: World, agent: WorldAgent, projectUuid: string) {
  const idea = await world.idea(agent.actor, projectUuid, { state: 'elaborated' });
  const p = await world.ok(agent, 'svc_pm_create_proposal', { projectUuid, title: 'Checkout rework', inputType: 'idea', inputUuids: [idea.uuid] });
  const doc = await world.ok(agent, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'tech_design', title: 'Design', content: LONG_CONTENT });
  const a = await world.ok(agent, 'svc_pm_add_task_draft', { proposalUuid: p.uuid, title: 'Task A', priority: 'high', acceptanceCriteriaItems: [{ description: 'A works' }] });
  const b = await world.ok(agent, 'svc_pm_add_task_draft', {
    proposalUuid: p.uuid,
    title: 'Task B',
    storyPoints: 3,
    acceptanceCriteriaItems: [{ description: 'B works' }, { description: 'B is fast', required: false }],
    dependsOnDraftUuids: [a.draftUuid],
  });
  return { uuid: p.uuid as string, idea, docDraft: doc.draftUuid as string, taskDrafts: { a: a.draftUuid as string, b: b.draftUuid as string } };
}

/**
 * A proposal of `by` driven through the tools to `status`, approved or closed by `admin` (an agent with
 * proposal:admin). The caller discards the events it published.
 */
export async function proposalIn(world: World, status: 'draft' | 'pending' | 'approved' | 'closed', on: { by: WorldAgent; admin: WorldAgent; projectUuid: string }) {
  const p = await draftProposal(world, on.by, on.projectUuid);
  if (status !== 'draft') await world.ok(on.by, 'svc_pm_submit_proposal', { proposalUuid: p.uuid });
  if (status === 'approved') await world.ok(on.admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid });
  if (status === 'closed') await world.ok(on.admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Not now' });
  return p;
}
