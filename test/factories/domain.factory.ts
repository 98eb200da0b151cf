import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Actor } from '../../src/shared/auth/actor.js';
import type { DocumentType } from '../../src/modules/documents/index.js';
import { ElaborationService, IdeaService, type IdeaRecord, type QuestionInput } from '../../src/modules/ideas/index.js';
import { ProjectGroupService, ProjectService, type GroupRecord, type ProjectRecord } from '../../src/modules/projects/index.js';
import type { ProposalStatus } from '../../src/modules/proposals/index.js';
import type { TaskStatus } from '../../src/modules/tasks/index.js';
import { DocumentEntity, ProposalEntity, TaskDependencyEntity, TaskEntity } from '../../src/entities.js';
import { unique, type World } from '../utils/world.js';

/**
 * Where an idea should end up. `pending_answers` / `validating` are elaborating ideas with one round open / answered;
 * `elaborated` is resolved through a validated round, `skipped` through skip; `appended` is elaborated with an
 * appended round still awaiting answers.
 */
export type IdeaState = 'open' | 'elaborating' | 'pending_answers' | 'validating' | 'elaborated' | 'skipped' | 'appended';

export function question(id = 'q1', overrides: Partial<QuestionInput> = {}): QuestionInput {
  return {
    id,
    text: `Question ${id}?`,
    category: 'functional',
    options: [
      { id: 'a', label: 'Option A' },
      { id: 'b', label: 'Option B', description: 'the other one' },
    ],
    ...overrides,
  };
}

/**
 * Builds projects, groups and ideas in any state through the world's DI-built services (its seeders' context, or with
 * `{ app: true }` a started world's app, whose streams then show the seeding). Proposals, tasks, documents and
 * dependency edges are inserted directly (their services live in other modules) with just the columns the idea rules
 * read.
 */
export class DomainFactory {
  readonly projects: ProjectService;
  readonly groups: ProjectGroupService;
  readonly ideas: IdeaService;
  readonly elaboration: ElaborationService;
  private readonly db: DataSource;

  constructor(world: World, opts: { app?: boolean } = {}) {
    const resolve = <T>(token: abstract new (...args: never[]) => T): T => (opts.app ? world.get(token) : world.seeding(token));
    this.db = world.ds;
    this.projects = resolve(ProjectService);
    this.groups = resolve(ProjectGroupService);
    this.ideas = resolve(IdeaService);
    this.elaboration = resolve(ElaborationService);
  }

  group(actor: Actor, overrides: { name?: string; description?: string } = {}): Promise<GroupRecord> {
    return this.groups.create(actor, { name: overrides.name ?? `Group ${unique()}`, description: overrides.description });
  }

  project(actor: Actor, overrides: { name?: string; description?: string; groupUuid?: string } = {}): Promise<ProjectRecord> {
    return this.projects.create(actor, { name: overrides.name ?? `Project ${unique()}`, ...overrides });
  }

  /** An idea driven into `state`; `assignee` (default: the creator) claims it for every state but `open`. */
  async idea(
    actor: Actor,
    projectUuid: string,
    opts: { state?: IdeaState; assignee?: Actor; title?: string; content?: string; parentUuid?: string; isContainer?: boolean } = {},
  ): Promise<IdeaRecord> {
    const created = await this.ideas.create(actor, {
      projectUuid,
      title: opts.title ?? `Idea ${unique()}`,
      content: opts.content,
      parentUuid: opts.parentUuid,
      isContainer: opts.isContainer,
    });
    const state = opts.state ?? 'open';
    if (state === 'open') return created;
    const who = opts.assignee ?? actor;
    const ideaUuid = created.uuid;
    await this.ideas.claim(who, { ideaUuid });
    if (state === 'skipped') await this.elaboration.skip(who, { ideaUuid, reason: 'Agreed with a human' });
    if (['pending_answers', 'validating', 'elaborated', 'appended'].includes(state)) {
      await this.elaboration.start(who, { ideaUuid, depth: 'standard', questions: [question('q1')] });
    }
    if (['validating', 'elaborated', 'appended'].includes(state)) {
      await this.elaboration.answer(actor, { ideaUuid, answers: [{ questionId: 'q1', selectedOptionId: 'a' }] });
    }
    if (state === 'elaborated' || state === 'appended') await this.elaboration.validate(who, { ideaUuid });
    if (state === 'appended') await this.elaboration.start(who, { ideaUuid, depth: 'minimal', questions: [question('more')] });
    return this.ideas.get(actor, { ideaUuid });
  }

  async proposal(
    actor: Actor,
    projectUuid: string,
    opts: { inputUuids: string[]; status?: ProposalStatus; reviewedAt?: Date; title?: string },
  ): Promise<ProposalEntity> {
    const status = opts.status ?? 'draft';
    const reviewed = status === 'approved' || status === 'closed';
    const row = {
      uuid: randomUUID(),
      companyUuid: actor.companyUuid,
      projectUuid,
      title: opts.title ?? `Proposal ${unique()}`,
      description: '',
      inputType: 'idea' as const,
      inputUuids: opts.inputUuids,
      status,
      documentDrafts: [],
      taskDrafts: [],
      createdByType: actor.type,
      createdByUuid: actor.uuid,
      submittedAt: status === 'draft' ? null : new Date(),
      reviewedByType: reviewed ? actor.type : null,
      reviewedByUuid: reviewed ? actor.uuid : null,
      reviewNote: null,
      reviewedAt: opts.reviewedAt ?? (reviewed ? new Date() : null),
    };
    await this.db.manager.insert(ProposalEntity, row);
    return this.db.manager.findOneByOrFail(ProposalEntity, { uuid: row.uuid });
  }

  async task(actor: Actor, projectUuid: string, opts: { proposalUuid?: string | null; status?: TaskStatus; title?: string } = {}): Promise<TaskEntity> {
    const status = opts.status ?? 'open';
    const row = {
      uuid: randomUUID(),
      companyUuid: actor.companyUuid,
      projectUuid,
      proposalUuid: opts.proposalUuid ?? null,
      title: opts.title ?? `Task ${unique()}`,
      status,
      assigneeType: status === 'open' ? null : actor.type,
      assigneeUuid: status === 'open' ? null : actor.uuid,
      assignedAt: status === 'open' ? null : new Date(),
      createdByType: actor.type,
      createdByUuid: actor.uuid,
    };
    await this.db.manager.insert(TaskEntity, row);
    return this.db.manager.findOneByOrFail(TaskEntity, { uuid: row.uuid });
  }

  async document(actor: Actor, projectUuid: string, opts: { proposalUuid?: string | null; type?: DocumentType; title?: string } = {}): Promise<DocumentEntity> {
    const row = {
      uuid: randomUUID(),
      companyUuid: actor.companyUuid,
      projectUuid,
      type: opts.type ?? 'prd',
      title: opts.title ?? `Document ${unique()}`,
      content: 'Content',
      proposalUuid: opts.proposalUuid ?? null,
      createdByType: actor.type,
      createdByUuid: actor.uuid,
    };
    await this.db.manager.insert(DocumentEntity, row);
    return this.db.manager.findOneByOrFail(DocumentEntity, { uuid: row.uuid });
  }

  async dependency(taskUuid: string, dependsOnUuid: string): Promise<void> {
    await this.db.manager.insert(TaskDependencyEntity, { taskUuid, dependsOnUuid });
  }
}
