import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor, ActorType } from '../../shared/auth/actor.js';
import { ForbiddenError, InvalidStateError, ValidationError } from '../../shared/errors/app-error.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { deleteTargetCollaboration, insertReferences } from '../collaboration/index.js';
import { matchesActor, requireAssignable } from '../identity/index.js';
import { findProject } from '../projects/index.js';
import { ideaContent, ideaReferences, ideaTitle } from './domain/idea.rules.js';
import { moveIdea, type MovedCounts } from './idea-move.steps.js';
import type { IdeaEntity, IdeaStatus } from './idea.entity.js';
import { ideaRecord, ideaSummaries, type IdeaRecord, type IdeaSummary } from './idea.records.js';
import { IdeaRepository } from './idea.repository.js';
import type { CreateIdeaArgsDto, EditIdeaArgsDto } from './dto/idea.dto.js';

/** The arguments of svc_pm_create_idea / svc_edit_idea (the route bodies plus the ids of their paths). */
export type CreateIdeaInput = CreateIdeaArgsDto;
export type EditIdeaInput = EditIdeaArgsDto;

type ListInput = { projectUuid: string; page?: number; pageSize?: number };

/** Ideas (docs/domain.md §4): reads, creation, edits, assignment, move and deletion. Elaboration is ElaborationService. */
@Injectable()
export class IdeaService {
  constructor(
    private readonly db: DataSource,
    private readonly ideas: IdeaRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async list(actor: Actor, input: ListInput & { status?: IdeaStatus }): Promise<{ ideas: IdeaSummary[] } & PageResult> {
    const p = paging(input);
    const { status } = input;
    const em = this.db.manager;
    await findProject(em, input.projectUuid, actor.companyUuid);
    const [ideas, total] = await this.ideas.page({ companyUuid: actor.companyUuid, projectUuid: input.projectUuid }, status, offsetOf(p), p.pageSize);
    return { ideas: await ideaSummaries(em, actor.companyUuid, ideas), page: p.page, pageSize: p.pageSize, total };
  }

  /** svc_get_available_ideas: open (hence unassigned) ideas. */
  async listAvailable(actor: Actor, input: ListInput): Promise<{ ideas: IdeaSummary[] } & PageResult> {
    return this.list(actor, { ...input, status: 'open' });
  }

  async get(actor: Actor, input: { ideaUuid: string }): Promise<IdeaRecord> {
    const idea = await this.ideas.get(input.ideaUuid, actor.companyUuid);
    return ideaRecord(this.db.manager, actor.companyUuid, idea);
  }

  /** svc_pm_create_idea (-> open). */
  async create(actor: Actor, input: CreateIdeaInput): Promise<IdeaRecord> {
    const title = ideaTitle(input.title);
    const content = ideaContent(input.content);
    const references = ideaReferences(input.references);
    return this.runner.run(actor, async (tx) => {
      const ideas = this.ideas.in(tx);
      const project = await findProject(tx.manager, input.projectUuid, actor.companyUuid);
      const parent = input.parentUuid ? await ideas.get(input.parentUuid, actor.companyUuid, 'Parent idea') : null;
      if (parent && parent.projectUuid !== project.uuid) throw new ValidationError('Parent idea must be in the same project');
      const uuid = randomUUID();
      await ideas.add({
        uuid,
        companyUuid: actor.companyUuid,
        projectUuid: project.uuid,
        title,
        content,
        status: 'open',
        isContainer: input.isContainer ?? false,
        parentUuid: parent?.uuid ?? null,
        createdByType: actor.type,
        createdByUuid: actor.uuid,
      });
      await insertReferences(tx, { type: 'idea', uuid }, references);
      tx.change('idea', uuid, project.uuid, 'created');
      if (parent) tx.change('idea', parent.uuid, project.uuid, 'updated');
      tx.record('idea.created', { projectUuid: project.uuid, uuid: uuid }, { title });
      if (content) tx.text({ sourceType: 'idea', sourceUuid: uuid, entityType: 'idea', entityUuid: uuid, entityTitle: title, projectUuid: project.uuid, before: null, after: content });
      return this.record(tx, actor, uuid);
    });
  }

  /** svc_edit_idea: title, content, theme flag and parent; a call that changes nothing writes and publishes nothing. */
  async edit(actor: Actor, input: EditIdeaInput): Promise<IdeaRecord> {
    if (input.title === undefined && input.content === undefined && input.parentUuid === undefined && input.isContainer === undefined) {
      throw new ValidationError('Nothing to update');
    }
    const title = input.title !== undefined ? ideaTitle(input.title) : undefined;
    const content = input.content !== undefined ? ideaContent(input.content) : undefined;
    return this.runner.run(actor, async (tx) => {
      const ideas = this.ideas.in(tx);
      const idea = await ideas.lock(input.ideaUuid, actor.companyUuid);
      if (input.parentUuid !== undefined && input.parentUuid !== null) await this.checkParent(ideas, actor, idea, input.parentUuid);
      const changes: Partial<IdeaEntity> = {};
      const fields: string[] = [];
      if (title !== undefined && title !== idea.title) {
        changes.title = title;
        fields.push('title');
      }
      if (content !== undefined && content !== idea.content) {
        changes.content = content;
        fields.push('content');
      }
      if (input.isContainer !== undefined && input.isContainer !== idea.isContainer) {
        changes.isContainer = input.isContainer;
        fields.push('isContainer');
      }
      const reparent = input.parentUuid !== undefined && input.parentUuid !== idea.parentUuid;
      if (reparent) changes.parentUuid = input.parentUuid ?? null;
      if (!fields.length && !reparent) return this.record(tx, actor, idea.uuid);

      await ideas.change(idea.uuid, actor.companyUuid, changes);
      const projectUuid = idea.projectUuid;
      tx.change('idea', idea.uuid, projectUuid, 'updated');
      if (fields.length) tx.record('idea.edited', { projectUuid, uuid: idea.uuid }, { fields });
      if (reparent) {
        if (idea.parentUuid) tx.change('idea', idea.parentUuid, projectUuid, 'updated');
        if (changes.parentUuid) tx.change('idea', changes.parentUuid, projectUuid, 'updated');
        tx.record('idea.reparented', { projectUuid, uuid: idea.uuid }, { fromParentUuid: idea.parentUuid, toParentUuid: changes.parentUuid });
      }
      if (changes.content !== undefined) {
        tx.text({ sourceType: 'idea', sourceUuid: idea.uuid, entityType: 'idea', entityUuid: idea.uuid, entityTitle: changes.title ?? idea.title, projectUuid, before: idea.content, after: changes.content });
      }
      return this.record(tx, actor, idea.uuid);
    });
  }

  /** svc_claim_idea (open -> elaborating); the current assignee claiming again is an unchanged success. */
  async claim(actor: Actor, input: { ideaUuid: string }): Promise<IdeaRecord> {
    return this.runner.run(actor, async (tx) => {
      const idea = await this.ideas.in(tx).lock(input.ideaUuid, actor.companyUuid);
      if (idea.status !== 'open') {
        if (await matchesActor(tx.manager, actor, { type: idea.assigneeType, uuid: idea.assigneeUuid })) return this.record(tx, actor, idea.uuid);
        throw new InvalidStateError(`Idea is ${idea.status}; claim requires open`);
      }
      await this.setAssignee(tx, idea, { type: actor.type, uuid: actor.uuid });
      return this.record(tx, actor, idea.uuid);
    });
  }

  /** svc_release_idea (elaborating -> open): clears assignee, depth and elaboration status; rounds are kept. */
  async release(actor: Actor, input: { ideaUuid: string }): Promise<IdeaRecord> {
    return this.runner.run(actor, async (tx) => {
      const ideas = this.ideas.in(tx);
      const idea = await ideas.lock(input.ideaUuid, actor.companyUuid);
      if (!(await matchesActor(tx.manager, actor, { type: idea.assigneeType, uuid: idea.assigneeUuid }))) {
        throw new ForbiddenError('Only the assignee can release this idea');
      }
      if (idea.status !== 'elaborating') throw new InvalidStateError(`Idea is ${idea.status}; release requires elaborating`);
      await ideas.change(idea.uuid, actor.companyUuid, {
        status: 'open',
        assigneeType: null,
        assigneeUuid: null,
        assignedAt: null,
        assignedByType: null,
        assignedByUuid: null,
        elaborationDepth: null,
        elaborationStatus: null,
      });
      tx.change('idea', idea.uuid, idea.projectUuid, 'updated');
      tx.record('idea.released', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { assignee: { type: idea.assigneeType, uuid: idea.assigneeUuid } });
      return this.record(tx, actor, idea.uuid);
    });
  }

  /** REST assign (open, elaborating -> elaborating): a user or a non-archived agent holding idea:write. */
  async assign(actor: Actor, input: { ideaUuid: string; assigneeType: ActorType; assigneeUuid: string }): Promise<IdeaRecord> {
    if (input.assigneeType !== 'user' && input.assigneeType !== 'agent') {
      throw new ValidationError('Invalid arguments', [{ field: 'assigneeType', message: 'must be user or agent' }]);
    }
    return this.runner.run(actor, async (tx) => {
      const idea = await this.ideas.in(tx).lock(input.ideaUuid, actor.companyUuid);
      await requireAssignable(tx.manager, actor.companyUuid, input.assigneeType, input.assigneeUuid, 'idea:write');
      if (idea.status !== 'open' && idea.status !== 'elaborating') throw new InvalidStateError(`Idea is ${idea.status}; assign requires open or elaborating`);
      if (idea.assigneeType === input.assigneeType && idea.assigneeUuid === input.assigneeUuid) return this.record(tx, actor, idea.uuid);
      await this.setAssignee(tx, idea, { type: input.assigneeType, uuid: input.assigneeUuid });
      return this.record(tx, actor, idea.uuid);
    });
  }

  /** svc_move_idea: the idea, its subtree and the proposals, tasks and documents built on them (docs/domain.md §8). */
  async move(actor: Actor, input: { ideaUuid: string; targetProjectUuid: string }): Promise<{ idea: IdeaRecord; moved: MovedCounts }> {
    return this.runner.run(actor, async (tx) => {
      const moved = await moveIdea(tx, input);
      return { idea: await this.record(tx, actor, input.ideaUuid), moved };
    });
  }

  /** svc_admin_delete_idea: children become top-level; rounds, comments and references go; activities stay. */
  async delete(actor: Actor, input: { ideaUuid: string }): Promise<{ uuid: string; deleted: true }> {
    return this.runner.run(actor, async (tx) => {
      const ideas = this.ideas.in(tx);
      const idea = await ideas.lock(input.ideaUuid, actor.companyUuid);
      const children = await ideas.detachChildren(actor.companyUuid, idea.uuid);
      for (const c of children) tx.change('idea', c, idea.projectUuid, 'updated');
      if (idea.parentUuid) tx.change('idea', idea.parentUuid, idea.projectUuid, 'updated');
      await deleteTargetCollaboration(tx.manager, actor.companyUuid, 'idea', [idea.uuid]);
      // Rounds and their questions go with the idea (FK cascade).
      await ideas.remove(idea.uuid, actor.companyUuid);
      tx.change('idea', idea.uuid, idea.projectUuid, 'deleted');
      tx.record('idea.deleted', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { title: idea.title });
      return { uuid: idea.uuid, deleted: true as const };
    });
  }

  /** The idea's record as the mutation leaves it. */
  private async record(tx: Tx, actor: Actor, uuid: string): Promise<IdeaRecord> {
    const idea = await this.ideas.in(tx).get(uuid, actor.companyUuid);
    return ideaRecord(tx.manager, actor.companyUuid, idea);
  }

  private async setAssignee(tx: Tx, idea: IdeaEntity, assignee: { type: ActorType; uuid: string }): Promise<void> {
    await this.ideas.in(tx).change(idea.uuid, tx.actor.companyUuid, {
      status: 'elaborating',
      assigneeType: assignee.type,
      assigneeUuid: assignee.uuid,
      assignedAt: new Date(),
      assignedByType: tx.actor.type,
      assignedByUuid: tx.actor.uuid,
    });
    tx.change('idea', idea.uuid, idea.projectUuid, 'updated');
    tx.record('idea.assigned', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { assignee });
  }

  /** Same project, not itself, no cycle: the idea must not be an ancestor of its new parent. */
  private async checkParent(ideas: IdeaRepository, actor: Actor, idea: IdeaEntity, parentUuid: string): Promise<void> {
    if (parentUuid === idea.uuid) throw new ValidationError('An idea cannot be its own parent');
    const parent = await ideas.get(parentUuid, actor.companyUuid, 'Parent idea');
    if (parent.projectUuid !== idea.projectUuid) throw new ValidationError('Parent idea must be in the same project');
    if (await ideas.isAncestorOrSelf(actor.companyUuid, idea.uuid, parent.uuid)) throw new ValidationError('Setting this parent would create a cycle');
  }
}
