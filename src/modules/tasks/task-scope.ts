import { IsNull, type EntityManager } from 'typeorm';
import type { ActorType } from '../../shared/auth/actor.js';
import { effectivePermissions } from '../../shared/auth/permissions.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { AgentEntity, UserEntity } from '../identity/index.js';

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

/** An assignment target: a user, or a non-archived agent holding task:write, of the caller's company. */
export async function requireAssignTarget(em: EntityManager, companyUuid: string, type: ActorType, uuid: unknown): Promise<string> {
  if (type === 'agent') {
    const agent = isUuid(uuid) ? await em.findOne(AgentEntity, { where: { uuid, companyUuid, archivedAt: IsNull() } }) : null;
    if (!agent) throw new NotFoundError('Agent');
    if (!effectivePermissions(agent.preset, agent.permissions).includes('task:write')) {
      throw new ValidationError(`Agent "${agent.name}" does not have task:write permission`);
    }
    return agent.uuid;
  }
  const user = isUuid(uuid) ? await em.findOne(UserEntity, { where: { uuid, companyUuid } }) : null;
  if (!user) throw new NotFoundError('User');
  return user.uuid;
}
