import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from 'typeorm';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { ProjectScopeRepository } from './project-scope.repository.js';

/** What the scoping headers ask for (docs/tool-conventions.md §2), before anything is looked up. */
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
  // A value made only of separators is not blank: it names no project, so the scope is empty.
  if (header(headers, 'x-service-project')) {
    return { kind: 'projects', projectUuids: [...new Set(projectEntries(headers).filter(isUuid).map((e) => e.toLowerCase()))] };
  }
  return { kind: 'all' };
}

/** The `X-Service-Project` entries: split on commas, trimmed, blanks dropped. */
function projectEntries(headers: IncomingHttpHeaders): string[] {
  return header(headers, 'x-service-project')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/**
 * The project uuids of the caller's company the headers scope to, or null for no scope (all projects). An
 * unknown or foreign group, and a list naming no project of the company, give the empty scope.
 */
export async function resolveProjectScope(em: EntityManager, companyUuid: string, headers: IncomingHttpHeaders): Promise<string[] | null> {
  return (await resolveScope(em, companyUuid, headers)).projectScope;
}

/** Header values echoed in a warning are cut to this length; at most this many entries are warned about. */
const MAX_ECHOED_CHARS = 100;
const MAX_WARNINGS = 20;

const echo = (value: string): string => (value.length > MAX_ECHOED_CHARS ? `${value.slice(0, MAX_ECHOED_CHARS)}…` : value);

/**
 * The scope, plus `warnings` (docs/tool-conventions.md §1.5) naming the header values that matched nothing of the caller's company:
 * a group header naming no group of the company (the scope is then empty, never all projects), and each project
 * entry naming no project of the company (ignored). A known group without projects is not warned about.
 */
export async function resolveScope(
  em: EntityManager,
  companyUuid: string,
  headers: IncomingHttpHeaders,
): Promise<{ projectScope: string[] | null; warnings: string[] }> {
  const request = parseScopeHeaders(headers);
  if (request.kind === 'all') return { projectScope: null, warnings: [] };
  const projects = new ProjectScopeRepository(em);
  if (request.kind === 'group') {
    const { groupUuid } = request;
    if (groupUuid === null || !(await projects.groupExists(companyUuid, groupUuid))) {
      const value = echo(header(headers, 'x-service-project-group'));
      return { projectScope: [], warnings: [`X-Service-Project-Group: ${value} matches no project group of your company; the scope is empty`] };
    }
    return { projectScope: await projects.projectsOfGroup(companyUuid, groupUuid), warnings: [] };
  }
  const scope = await projects.projectsAmong(companyUuid, request.projectUuids);
  const found = new Set(scope);
  const entries = projectEntries(headers);
  if (!entries.length) {
    return { projectScope: [], warnings: [`X-Service-Project: ${echo(header(headers, 'x-service-project'))} names no project; the scope is empty`] };
  }
  const ignored = [...new Set(entries.filter((e) => !(isUuid(e) && found.has(e.toLowerCase()))))];
  const warnings = ignored.slice(0, MAX_WARNINGS).map((e) => `X-Service-Project: ${echo(e)} matches no project of your company; ignored`);
  if (ignored.length > MAX_WARNINGS) warnings.push(`X-Service-Project: ${ignored.length - MAX_WARNINGS} more value(s) match no project of your company; ignored`);
  return { projectScope: scope, warnings };
}
