import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { ActorType } from '../../src/shared/auth/actor.js';
import type { DocumentType } from '../../src/modules/documents/index.js';
import { DocumentEntity, IdeaEntity, ProjectEntity, ProjectGroupEntity, ProposalEntity, TaskEntity } from '../../src/entities.js';
import { unique } from '../utils/world.js';

export interface Creator {
  type: ActorType;
  uuid: string;
}

type ProjectRef = Pick<ProjectEntity, 'uuid' | 'companyUuid'>;

/**
 * Domain rows inserted directly with the entity classes (the owning modules' services are built elsewhere), for
 * tests of services that only read or hang things off them.
 */
export class CollabFactory {
  constructor(private readonly db: DataSource) {}

  async group(companyUuid: string, o: Partial<Pick<ProjectGroupEntity, 'name' | 'description'>> = {}): Promise<ProjectGroupEntity> {
    return this.db.getRepository(ProjectGroupEntity).save({ uuid: randomUUID(), companyUuid, name: o.name ?? `Group ${unique()}`, description: o.description ?? '' });
  }

  async project(companyUuid: string, o: Partial<Pick<ProjectEntity, 'name' | 'description' | 'groupUuid'>> = {}): Promise<ProjectEntity> {
    return this.db.getRepository(ProjectEntity).save({
      uuid: randomUUID(),
      companyUuid,
      groupUuid: o.groupUuid ?? null,
      name: o.name ?? `Project ${unique()}`,
      description: o.description ?? '',
    });
  }

  async idea(project: ProjectRef, by: Creator, o: Partial<Pick<IdeaEntity, 'title' | 'content'>> = {}): Promise<IdeaEntity> {
    return this.db.getRepository(IdeaEntity).save({
      uuid: randomUUID(),
      companyUuid: project.companyUuid,
      projectUuid: project.uuid,
      title: o.title ?? `Idea ${unique()}`,
      content: o.content ?? '',
      createdByType: by.type,
      createdByUuid: by.uuid,
    });
  }

  async proposal(project: ProjectRef, by: Creator, o: Partial<Pick<ProposalEntity, 'title' | 'description' | 'status'>> = {}): Promise<ProposalEntity> {
    return this.db.getRepository(ProposalEntity).save({
      uuid: randomUUID(),
      companyUuid: project.companyUuid,
      projectUuid: project.uuid,
      title: o.title ?? `Proposal ${unique()}`,
      description: o.description ?? '',
      status: o.status ?? 'draft',
      inputType: 'idea',
      inputUuids: [],
      createdByType: by.type,
      createdByUuid: by.uuid,
    });
  }

  async task(project: ProjectRef, by: Creator, o: Partial<Pick<TaskEntity, 'title' | 'description'>> = {}): Promise<TaskEntity> {
    return this.db.getRepository(TaskEntity).save({
      uuid: randomUUID(),
      companyUuid: project.companyUuid,
      projectUuid: project.uuid,
      title: o.title ?? `Task ${unique()}`,
      description: o.description ?? '',
      createdByType: by.type,
      createdByUuid: by.uuid,
    });
  }

  async document(project: ProjectRef, by: Creator, o: Partial<{ title: string; content: string; type: DocumentType }> = {}): Promise<DocumentEntity> {
    return this.db.getRepository(DocumentEntity).save({
      uuid: randomUUID(),
      companyUuid: project.companyUuid,
      projectUuid: project.uuid,
      type: o.type ?? 'prd',
      title: o.title ?? `Document ${unique()}`,
      content: o.content ?? '',
      createdByType: by.type,
      createdByUuid: by.uuid,
    });
  }

  /** One of each commentable target in a project. */
  async targets(project: ProjectRef, by: Creator): Promise<{ idea: IdeaEntity; proposal: ProposalEntity; task: TaskEntity; document: DocumentEntity }> {
    return {
      idea: await this.idea(project, by),
      proposal: await this.proposal(project, by),
      task: await this.task(project, by),
      document: await this.document(project, by),
    };
  }

  /** Pins `updated_at` (ordering tests); `table` is a fixed domain table name. */
  async setUpdatedAt(table: 'task' | 'idea' | 'proposal' | 'document' | 'project' | 'project_group', uuid: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE ${table} SET updated_at = $1 WHERE uuid = $2`, [at, uuid]);
  }
}
