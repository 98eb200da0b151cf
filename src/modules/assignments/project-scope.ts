import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from 'typeorm';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';

/** What the scoping headers ask for (tools.md §2), before anything is looked up. */
export type ScopeRequest =
  | { kind: 'all' }
  /** `groupUuid` null: the header named no uuid at all, which scopes to nothing. */
  | { kind: 'group'; groupUuid: string | null }
  | { kind: 'projects'; projectUuids: string[] };

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim();
}

/**
 * The first present non-blank header wins, the group header first. An unusable group header never widens the
 * scope to "all projects"; project entries that are not uuids are ignored here, foreign ones by the query.
 */
export function parseScopeHeaders(headers: IncomingHttpHeaders): ScopeRequest {
  const group = header(headers, 'x-service-project-group');
  if (group) return { kind: 'group', groupUuid: isUuid(group) ? group.toLowerCase() : null };
  const projects = header(headers, 'x-service-project');
  if (projects) {
    const entries = projects.split(',').map((e) => e.trim()).filter((e) => e !== '');
    return { kind: 'projects', projectUuids: [...new Set(entries.filter(isUuid).map((e) => e.toLowerCase()))] };
  }
  return { kind: 'all' };
}

/**
 * The project uuids of the caller's company the headers scope to, or null for no scope (all projects). An
 * unknown or foreign group, and a list naming no project of the company, give the empty scope.
 */
export async function resolveProjectScope(em: EntityManager, companyUuid: string, headers: IncomingHttpHeaders): Promise<string[] | null> {
  const request = parseScopeHeaders(headers);
  if (request.kind === 'all') return null;
  if (request.kind === 'group' && request.groupUuid === null) return [];
  if (request.kind === 'projects' && request.projectUuids.length === 0) return [];
  const rows: Array<{ uuid: string }> =
    request.kind === 'group'
      ? await em.query(`SELECT uuid FROM project WHERE company_uuid = $1 AND group_uuid = $2 ORDER BY uuid`, [companyUuid, request.groupUuid])
      : await em.query(`SELECT uuid FROM project WHERE company_uuid = $1 AND uuid = ANY($2::uuid[]) ORDER BY uuid`, [companyUuid, request.projectUuids]);
  return rows.map((r) => r.uuid);
}
