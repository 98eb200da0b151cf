import type { EntityManager } from 'typeorm';
import type { ProjectEntity } from './project.entity.js';
import { ProjectRepository } from './project.repository.js';

/** A project of the company, for other modules' checks; another company's project is "<displayName> not found". */
export function findProject(em: EntityManager, projectUuid: string, companyUuid: string, displayName = 'Project'): Promise<ProjectEntity> {
  return new ProjectRepository(em).get(projectUuid, companyUuid, displayName);
}
