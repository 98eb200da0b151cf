import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Actor, ActorType } from '../../src/shared/auth/actor.js';
import type { DocumentType } from '../../src/modules/documents/index.js';
import { ProposalApprovalService, ProposalService } from '../../src/modules/proposals/index.js';
import type { TaskStatus } from '../../src/modules/tasks/index.js';
import { unique, type World } from '../utils/world.js';
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

/** Who writes a seeded proposal and where; `reviewer` approves or closes it when the status asks for a review. */
export interface ProposalSeed {
  author: Actor;
  projectUuid: string;
  reviewer?: Actor;
}

/**
 * A draft proposal by `author` in `projectUuid` over one fresh idea elaborated and assigned to it (`world.idea`), filled
 * through the proposal service of the world's seeders' context so that it validates: a tech design and a PRD draft,
 * and three task drafts where B depends on A and C depends on A and B. The setup's events are discarded.
 */
export async function readyProposal(world: World, author: Actor, projectUuid: string) {
  const proposals = world.seeding(ProposalService);
  const idea = await world.idea(author, projectUuid, { state: 'elaborated' });
  const created = await proposals.create(author, {
    projectUuid,
    title: `Proposal ${unique()}`,
    description: 'Why this matters',
    inputType: 'idea',
    inputUuids: [idea.uuid],
  });
  const pu = created.uuid;
  const d1 = await proposals.addDocumentDraft(author, { proposalUuid: pu, type: 'tech_design', title: 'Design', content: LONG_CONTENT });
  const d2 = await proposals.addDocumentDraft(author, { proposalUuid: pu, type: 'prd', title: 'Requirements', content: LONG_CONTENT });
  const a = await proposals.addTaskDraft(author, {
    proposalUuid: pu,
    title: 'Task A',
    description: 'First, mentions @[Someone](user:00000000-0000-4000-8000-000000000001)',
    priority: 'high',
    storyPoints: 3,
    acceptanceCriteriaItems: [{ description: ' A1 ' }, { description: 'A2', required: false }, { description: '   ' }],
  });
  const b = await proposals.addTaskDraft(author, {
    proposalUuid: pu,
    title: 'Task B',
    description: 'Second',
    storyPoints: 5,
    acceptanceCriteriaItems: [{ description: 'B1' }],
    dependsOnDraftUuids: [a.draftUuid],
  });
  const c = await proposals.addTaskDraft(author, {
    proposalUuid: pu,
    title: 'Task C',
    description: 'Third',
    priority: 'low',
    storyPoints: 1,
    acceptanceCriteriaItems: [{ description: 'C1' }, { description: 'C2' }],
    dependsOnDraftUuids: [a.draftUuid, b.draftUuid],
  });
  world.h.takeEvents();
  return { idea, uuid: pu, docDrafts: [d1.draftUuid, d2.draftUuid], taskDrafts: { a: a.draftUuid, b: b.draftUuid, c: c.draftUuid } };
}

export type SeededProposalStatus = 'draft' | 'pending' | 'approved' | 'closed';

/**
 * A ready proposal (`readyProposal`) driven to `pending` by its author, or on to `approved` / `closed` by `reviewer`;
 * events of the setup are discarded.
 */
export async function proposalIn(world: World, status: SeededProposalStatus, seed: ProposalSeed) {
  const p = await readyProposal(world, seed.author, seed.projectUuid);
  if (status !== 'draft') await world.seeding(ProposalService).submit(seed.author, { proposalUuid: p.uuid });
  if (status === 'approved' || status === 'closed') {
    if (!seed.reviewer) throw new Error(`proposalIn: an ${status} proposal needs a reviewer`);
    if (status === 'approved') await world.seeding(ProposalApprovalService).approve(seed.reviewer, { proposalUuid: p.uuid });
    else await world.seeding(ProposalService).close(seed.reviewer, { proposalUuid: p.uuid, reviewNote: 'Not now' });
  }
  world.h.takeEvents();
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

/** A refused call leaves the proposal row and the activity stream as they were and publishes nothing on `world`'s bus. */
export async function refusedUnchanged(world: World, proposalUuid: string, call: () => Promise<unknown>, code: string, message?: string) {
  const f = new ProposalFactory(world.ds);
  const before = await f.proposalRow(proposalUuid);
  const activities = await f.activityCount();
  world.h.takeEvents();
  const error = await refused(call(), code, message);
  expect(await f.proposalRow(proposalUuid)).toEqual(before);
  expect(await f.activityCount()).toBe(activities);
  expect(world.h.takeEvents()).toEqual([]);
  return error;
}
