import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Actor, ActorType } from '../../src/shared/auth/actor.js';
import { DocumentService, type DocumentType } from '../../src/modules/documents/index.js';
import { ProposalApprovalService, ProposalRevocationService, ProposalService } from '../../src/modules/proposals/index.js';
import type { TaskStatus } from '../../src/modules/tasks/index.js';
import { agentActor, unique, userActor, type Harness, type World } from '../utils/world.js';
import { AcceptanceCriterionEntity, ActivityEntity, AgentSessionEntity, CommentEntity, DocumentEntity, IdeaEntity, ProjectEntity, ProposalEntity, ReferenceEntity, SessionTaskCheckinEntity, TaskDependencyEntity, TaskEntity } from '../../src/entities.js';

type Who = { type: ActorType; uuid: string };
const who = (a: Actor | Who): Who => ({ type: a.type, uuid: a.uuid });

/** 100+ characters: enough for E2. */
export const LONG_CONTENT = 'This document explains the change in enough detail for a reviewer to judge it. '.repeat(2);

/**
 * Rows the proposal and document services build on (projects, ideas ready to feed a proposal, tasks, sessions),
 * inserted directly with the entity classes: their own services belong to other modules.
 */
export class ProposalFactory {
  constructor(readonly db: DataSource) {}

  async project(companyUuid: string, name = `Project ${unique()}`): Promise<ProjectEntity> {
    return this.db.manager.save(this.db.manager.create(ProjectEntity, { uuid: randomUUID(), companyUuid, name, description: '', groupUuid: null }));
  }

  /** By default an elaborated, resolved idea assigned to `assignee` — a valid proposal input. */
  async idea(
    companyUuid: string,
    projectUuid: string,
    assignee: Actor | Who | null,
    opts: Partial<Pick<IdeaEntity, 'title' | 'status' | 'elaborationStatus' | 'isContainer' | 'parentUuid'>> & { creator?: Who } = {},
  ): Promise<IdeaEntity> {
    const creator = opts.creator ?? (assignee ? who(assignee) : { type: 'user' as const, uuid: randomUUID() });
    return this.db.manager.save(
      this.db.manager.create(IdeaEntity, {
        uuid: randomUUID(),
        companyUuid,
        projectUuid,
        title: opts.title ?? `Idea ${unique()}`,
        content: '',
        status: opts.status ?? (assignee ? 'elaborated' : 'open'),
        isContainer: opts.isContainer ?? false,
        parentUuid: opts.parentUuid ?? null,
        assigneeType: assignee?.type ?? null,
        assigneeUuid: assignee?.uuid ?? null,
        assignedAt: assignee ? new Date() : null,
        assignedByType: assignee?.type ?? null,
        assignedByUuid: assignee?.uuid ?? null,
        elaborationDepth: assignee ? 'minimal' : null,
        elaborationStatus: opts.elaborationStatus === undefined ? (assignee ? 'resolved' : null) : opts.elaborationStatus,
        createdByType: creator.type,
        createdByUuid: creator.uuid,
      }),
    );
  }

  async task(
    companyUuid: string,
    projectUuid: string,
    creator: Actor | Who,
    opts: { title?: string; status?: TaskStatus; proposalUuid?: string | null; assignee?: Who | null } = {},
  ): Promise<TaskEntity> {
    const status = opts.status ?? 'open';
    const assignee = opts.assignee ?? (status === 'open' ? null : who(creator));
    return this.db.manager.save(
      this.db.manager.create(TaskEntity, {
        uuid: randomUUID(),
        companyUuid,
        projectUuid,
        proposalUuid: opts.proposalUuid ?? null,
        title: opts.title ?? `Task ${unique()}`,
        description: '',
        status,
        priority: 'medium',
        storyPoints: null,
        assigneeType: assignee?.type ?? null,
        assigneeUuid: assignee?.uuid ?? null,
        assignedAt: assignee ? new Date() : null,
        assignedByType: assignee?.type ?? null,
        assignedByUuid: assignee?.uuid ?? null,
        createdByType: who(creator).type,
        createdByUuid: who(creator).uuid,
      }),
    );
  }

  async dependency(taskUuid: string, dependsOnUuid: string): Promise<void> {
    await this.db.manager.insert(TaskDependencyEntity, { taskUuid, dependsOnUuid });
  }

  async document(
    companyUuid: string,
    projectUuid: string,
    creator: Actor | Who,
    opts: { type?: DocumentType; title?: string; content?: string; proposalUuid?: string | null } = {},
  ): Promise<DocumentEntity> {
    return this.db.manager.save(
      this.db.manager.create(DocumentEntity, {
        uuid: randomUUID(),
        companyUuid,
        projectUuid,
        type: opts.type ?? 'prd',
        title: opts.title ?? `Document ${unique()}`,
        content: opts.content ?? LONG_CONTENT,
        version: 1,
        proposalUuid: opts.proposalUuid ?? null,
        createdByType: who(creator).type,
        createdByUuid: who(creator).uuid,
      }),
    );
  }

  async comment(companyUuid: string, targetType: CommentEntity['targetType'], targetUuid: string, author: Actor | Who): Promise<CommentEntity> {
    return this.db.manager.save(
      this.db.manager.create(CommentEntity, {
        uuid: randomUUID(),
        companyUuid,
        targetType,
        targetUuid,
        content: `Comment ${unique()}`,
        authorType: who(author).type,
        authorUuid: who(author).uuid,
      }),
    );
  }

  async reference(companyUuid: string, targetType: ReferenceEntity['targetType'], targetUuid: string, creator: Actor | Who): Promise<ReferenceEntity> {
    return this.db.manager.save(
      this.db.manager.create(ReferenceEntity, {
        uuid: randomUUID(),
        companyUuid,
        targetType,
        targetUuid,
        type: 'docs',
        url: 'https://example.test/ref',
        title: 'Ref',
        notes: null,
        createdByType: who(creator).type,
        createdByUuid: who(creator).uuid,
      }),
    );
  }

  /** An active session of `agent` checked in to each of `taskUuids`. */
  async checkedInSession(agent: Actor, taskUuids: string[]): Promise<AgentSessionEntity> {
    const session = await this.db.manager.save(
      this.db.manager.create(AgentSessionEntity, {
        uuid: randomUUID(),
        companyUuid: agent.companyUuid,
        agentUuid: agent.uuid,
        name: `Session ${unique()}`,
        description: '',
        status: 'active',
        lastActiveAt: new Date(),
        closedAt: null,
      }),
    );
    for (const taskUuid of taskUuids) {
      await this.db.manager.insert(SessionTaskCheckinEntity, { sessionUuid: session.uuid, taskUuid, checkinAt: new Date(), checkoutAt: null });
    }
    return session;
  }

  async criteria(taskUuid: string): Promise<AcceptanceCriterionEntity[]> {
    return this.db.manager.find(AcceptanceCriterionEntity, { where: { taskUuid }, order: { sortOrder: 'ASC' } });
  }

  async proposalRow(uuid: string): Promise<ProposalEntity | null> {
    return this.db.manager.findOne(ProposalEntity, { where: { uuid } });
  }

  async activities(targetUuid: string): Promise<ActivityEntity[]> {
    return this.db.manager.find(ActivityEntity, { where: { targetUuid }, order: { createdAt: 'ASC' } });
  }

  async activityCount(): Promise<number> {
    return this.db.manager.count(ActivityEntity);
  }
}

/** One company with a user, a pm agent and an admin agent (both owned by the user) and a project. */
export interface ProposalWorld {
  h: Harness;
  f: ProposalFactory;
  proposals: ProposalService;
  approval: ProposalApprovalService;
  revocation: ProposalRevocationService;
  documents: DocumentService;
  companyUuid: string;
  user: Actor;
  pm: Actor;
  admin: Actor;
  /** A second user of the same company and an agent it owns: "someone else" for identity rules. */
  otherUser: Actor;
  otherPm: Actor;
  project: ProjectEntity;
}

/** Seeds the cast into a `World.database()`; its services are the world's (DI-built), its events the world's harness's. */
export async function seedWorld(world: World): Promise<ProposalWorld> {
  const h = world.h;
  const db = world.ds;
  const ids = world.ids;
  const company = await ids.company();
  const u = await ids.user(company.uuid);
  const u2 = await ids.user(company.uuid);
  const pmAgent = await ids.agent(company.uuid, u.uuid, { preset: 'pm_agent', name: `PM ${unique()}` });
  const adminAgent = await ids.agent(company.uuid, u.uuid, { preset: 'admin_agent', name: `Admin ${unique()}` });
  const otherPmAgent = await ids.agent(company.uuid, u2.uuid, { preset: 'pm_agent', name: `Other PM ${unique()}` });
  const f = new ProposalFactory(db);
  return {
    h,
    f,
    proposals: world.seeding(ProposalService),
    approval: world.seeding(ProposalApprovalService),
    revocation: world.seeding(ProposalRevocationService),
    documents: world.seeding(DocumentService),
    companyUuid: company.uuid,
    user: userActor(u),
    pm: agentActor(pmAgent.agent, company.uuid),
    admin: agentActor(adminAgent.agent, company.uuid),
    otherUser: userActor(u2),
    otherPm: agentActor(otherPmAgent.agent, company.uuid),
    project: await f.project(company.uuid),
  };
}

/**
 * A draft proposal by `actor` over one fresh idea assigned to it, filled so that it validates: a tech design and a
 * PRD draft, and three task drafts where B depends on A and C depends on A and B.
 */
export async function readyProposal(w: ProposalWorld, actor: Actor = w.pm, projectUuid = w.project.uuid) {
  const idea = await w.f.idea(w.companyUuid, projectUuid, actor);
  const created = await w.proposals.create(actor, {
    projectUuid,
    title: `Proposal ${unique()}`,
    description: 'Why this matters',
    inputType: 'idea',
    inputUuids: [idea.uuid],
  });
  const pu = created.uuid;
  const d1 = await w.proposals.addDocumentDraft(actor, { proposalUuid: pu, type: 'tech_design', title: 'Design', content: LONG_CONTENT });
  const d2 = await w.proposals.addDocumentDraft(actor, { proposalUuid: pu, type: 'prd', title: 'Requirements', content: LONG_CONTENT });
  const a = await w.proposals.addTaskDraft(actor, {
    proposalUuid: pu,
    title: 'Task A',
    description: 'First, mentions @[Someone](user:00000000-0000-4000-8000-000000000001)',
    priority: 'high',
    storyPoints: 3,
    acceptanceCriteriaItems: [{ description: ' A1 ' }, { description: 'A2', required: false }, { description: '   ' }],
  });
  const b = await w.proposals.addTaskDraft(actor, {
    proposalUuid: pu,
    title: 'Task B',
    description: 'Second',
    storyPoints: 5,
    acceptanceCriteriaItems: [{ description: 'B1' }],
    dependsOnDraftUuids: [a.draftUuid],
  });
  const c = await w.proposals.addTaskDraft(actor, {
    proposalUuid: pu,
    title: 'Task C',
    description: 'Third',
    priority: 'low',
    storyPoints: 1,
    acceptanceCriteriaItems: [{ description: 'C1' }, { description: 'C2' }],
    dependsOnDraftUuids: [a.draftUuid, b.draftUuid],
  });
  w.h.takeEvents();
  return { idea, uuid: pu, docDrafts: [d1.draftUuid, d2.draftUuid], taskDrafts: { a: a.draftUuid, b: b.draftUuid, c: c.draftUuid } };
}

/** Drives a proposal to `pending`, or on to `approved` / `closed`; events of the setup are discarded. */
export async function proposalIn(w: ProposalWorld, status: 'draft' | 'pending' | 'approved' | 'closed', actor: Actor = w.pm) {
  const p = await readyProposal(w, actor);
  if (status !== 'draft') await w.proposals.submit(actor, { proposalUuid: p.uuid });
  if (status === 'approved') await w.approval.approve(w.admin, { proposalUuid: p.uuid });
  if (status === 'closed') await w.proposals.close(w.admin, { proposalUuid: p.uuid, reviewNote: 'Not now' });
  w.h.takeEvents();
  return p;
}

/** Asserts a refusal by code (and message when given) and returns the error for further checks. */
export async function refused(promise: Promise<unknown>, code: string, message?: string): Promise<{ code: string; message: string; extra: Record<string, unknown> }> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err as { code: string; message: string; extra: Record<string, unknown> },
  );
  expect(error).toBeDefined();
  expect({ code: error!.code, message: error!.message }).toEqual({ code, message: message ?? error!.message });
  return error!;
}

/** A refused call leaves the proposal row and the activity stream as they were and publishes nothing. */
export async function refusedUnchanged(w: ProposalWorld, proposalUuid: string, call: () => Promise<unknown>, code: string, message?: string) {
  const before = await w.f.proposalRow(proposalUuid);
  const activities = await w.f.activityCount();
  w.h.takeEvents();
  const error = await refused(call(), code, message);
  expect(await w.f.proposalRow(proposalUuid)).toEqual(before);
  expect(await w.f.activityCount()).toBe(activities);
  expect(w.h.takeEvents()).toEqual([]);
  return error;
}
