import type { EntityManager } from 'typeorm';
import { findInCompany } from '../../shared/database/tenant.js';
import { ProjectEntity } from './project.entity.js';

/** A project of the company, for other modules' checks; another company's project is "<displayName> not found". */
export function findProject(em: EntityManager, projectUuid: string, companyUuid: string, displayName = 'Project'): Promise<ProjectEntity> {
  return findInCompany(em, ProjectEntity, projectUuid, companyUuid, displayName);
}
