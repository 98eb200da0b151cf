import type { EntityManager } from 'typeorm';
import { NotFoundError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';

/**
 * The project a task call names, scoped to the caller's company. Plain SQL on purpose: the projects and proposals
 * modules build on this one (task counts, approval), so importing them here would close an import cycle.
 */
export async function requireProject(em: EntityManager, companyUuid: string, projectUuid: unknown): Promise<{ uuid: string; name: string }> {
  if (!isUuid(projectUuid)) throw new NotFoundError('Project');
  const [row]: Array<{ uuid: string; name: string }> = await em.query(`SELECT uuid, name FROM project WHERE uuid = $1 AND company_uuid = $2`, [
    projectUuid,
    companyUuid,
  ]);
  if (!row) throw new NotFoundError('Project');
  return row;
}
