import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ProjectEntity } from '../../src/modules/projects/index.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { callTool, okCall } from '../utils/mcp-client.js';
import type { World } from '../utils/world.js';
import type { SeededUser } from './identity.factory.js';
import { LONG_CONTENT, ProposalFactory } from './proposal.factory.js';

/** One agent as a tool caller: its record, its key, an SDK client bound to that key. */
export interface ToolAgent {
  uuid: string;
  name: string;
  key: string;
  client: Client;
  who: { type: 'agent'; uuid: string };
}

/**
 * Company A: a user owning a pm, an admin and a developer agent, a second user owning "another" pm agent, and a
 * project. Company B: a user, an admin agent and a project — the other tenant. Change events of the in-process bus
 * are collected in `events`. Built on the app's `World` (its agents' clients close with it).
 */
export interface ToolWorld {
  app: World;
  f: ProposalFactory;
  companyUuid: string;
  owner: SeededUser;
  project: ProjectEntity;
  pm: ToolAgent;
  otherPm: ToolAgent;
  admin: ToolAgent;
  developer: ToolAgent;
  other: { companyUuid: string; project: ProjectEntity; admin: ToolAgent };
  events: RealtimeEvent[];
  /** The events collected since the last call, emptying the list. */
  takeEvents(): RealtimeEvent[];
}

export async function seedToolWorld(app: World): Promise<ToolWorld> {
  const f = new ProposalFactory(app.ds);
  const agent = async (companyUuid: string, ownerUuid: string, preset: string, name: string): Promise<ToolAgent> => {
    const a = await app.agent(companyUuid, ownerUuid, { preset, name });
    return { uuid: a.uuid, name: a.name, key: a.key, client: a.client, who: { type: 'agent', uuid: a.uuid } };
  };
  const a = await app.company('Tools A');
  const owner = await app.user(a.uuid, { name: 'Owner' });
  const colleague = await app.user(a.uuid, { name: 'Colleague' });
  const b = await app.company('Tools B');
  const outsider = await app.user(b.uuid, { name: 'Outsider' });
  const events = app.recordEvents();
  return {
    app,
    f,
    companyUuid: a.uuid,
    owner,
    project: await f.project(a.uuid, 'Tools project'),
    pm: await agent(a.uuid, owner.uuid, 'pm_agent', 'PM'),
    otherPm: await agent(a.uuid, colleague.uuid, 'pm_agent', 'Other PM'),
    admin: await agent(a.uuid, owner.uuid, 'admin_agent', 'Admin'),
    developer: await agent(a.uuid, owner.uuid, 'developer_agent', 'Developer'),
    other: { companyUuid: b.uuid, project: await f.project(b.uuid, 'Other tenant project'), admin: await agent(b.uuid, outsider.uuid, 'admin_agent', 'Outsider admin') },
    events,
    takeEvents: () => events.splice(0, events.length),
  };
}

/** Calls a tool that must succeed and returns its parsed result. */
export function ok<T = any>(agent: ToolAgent, name: string, args: Record<string, unknown>): Promise<T> {
  return okCall<T>(agent.client, name, args);
}

/** A refused call: the parsed `{error}` of an isError result (fails the test when the call succeeded). */
export async function refusal(agent: ToolAgent, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; [extra: string]: unknown }> {
  const res = await callTool(agent.client, name, args);
  expect({ isError: res.isError, name }).toEqual({ isError: true, name });
  return res.data.error;
}

/** A change event of company A's project. */
export const change = (w: ToolWorld, entityType: RealtimeEvent['entityType'], entityUuid: string, action: RealtimeEvent['action'], projectUuid = w.project.uuid): RealtimeEvent => ({
  companyUuid: w.companyUuid,
  projectUuid,
  entityType,
  entityUuid,
  action,
});

/**
 * A draft proposal built through the tools by `agent` over one fresh resolved idea assigned to it: one document draft
 * and two task drafts (B depends on A) — it validates. The setup's events are discarded.
 */
export async function draftProposal(w: ToolWorld, agent: ToolAgent = w.pm) {
  const idea = await w.f.idea(w.companyUuid, w.project.uuid, agent.who);
  const p = await ok(agent, 'svc_pm_create_proposal', { projectUuid: w.project.uuid, title: 'Checkout rework', inputType: 'idea', inputUuids: [idea.uuid] });
  const doc = await ok(agent, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'tech_design', title: 'Design', content: LONG_CONTENT });
  const a = await ok(agent, 'svc_pm_add_task_draft', { proposalUuid: p.uuid, title: 'Task A', priority: 'high', acceptanceCriteriaItems: [{ description: 'A works' }] });
  const b = await ok(agent, 'svc_pm_add_task_draft', {
    proposalUuid: p.uuid,
    title: 'Task B',
    storyPoints: 3,
    acceptanceCriteriaItems: [{ description: 'B works' }, { description: 'B is fast', required: false }],
    dependsOnDraftUuids: [a.draftUuid],
  });
  w.takeEvents();
  return { uuid: p.uuid as string, idea, docDraft: doc.draftUuid as string, taskDrafts: { a: a.draftUuid as string, b: b.draftUuid as string } };
}

/** A proposal driven through the tools to `status` (approval and closing by the admin agent); events discarded. */
export async function proposalIn(w: ToolWorld, status: 'draft' | 'pending' | 'approved' | 'closed', agent: ToolAgent = w.pm) {
  const p = await draftProposal(w, agent);
  if (status !== 'draft') await ok(agent, 'svc_pm_submit_proposal', { proposalUuid: p.uuid });
  if (status === 'approved') await ok(w.admin, 'svc_admin_approve_proposal', { proposalUuid: p.uuid });
  if (status === 'closed') await ok(w.admin, 'svc_admin_close_proposal', { proposalUuid: p.uuid, reviewNote: 'Not now' });
  w.takeEvents();
  return p;
}
