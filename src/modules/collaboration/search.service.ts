import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { containsPattern, searchSnippet } from './domain/search-text.js';

export type SearchEntityType = 'task' | 'idea' | 'proposal' | 'document' | 'project' | 'project_group';
export type SearchScope = 'global' | 'group' | 'project';

export const SEARCH_ENTITY_TYPES: readonly SearchEntityType[] = ['task', 'idea', 'proposal', 'document', 'project', 'project_group'];
export const SEARCH_SCOPES: readonly SearchScope[] = ['global', 'group', 'project'];
export const MAX_SEARCH_QUERY = 200;
export const MAX_MENTIONABLES_QUERY = 100;

export interface SearchInput {
  query: string;
  scope?: string;
  scopeUuid?: string | null;
  entityTypes?: string[];
  page?: number;
  pageSize?: number;
}

export interface SearchResult {
  entityType: SearchEntityType;
  uuid: string;
  title: string;
  snippet: string;
  status: string | null;
  projectUuid: string | null;
  projectName: string | null;
  updatedAt: string;
}

export interface SearchCounts {
  tasks: number;
  ideas: number;
  proposals: number;
  documents: number;
  projects: number;
  projectGroups: number;
}

export interface Mentionable {
  type: 'user' | 'agent';
  uuid: string;
  name: string;
  email: string | null;
}

const COUNT_KEYS: Record<SearchEntityType, keyof SearchCounts> = {
  task: 'tasks',
  idea: 'ideas',
  proposal: 'proposals',
  document: 'documents',
  project: 'projects',
  project_group: 'projectGroups',
};

/** Placeholders by name, numbered on first use: PostgreSQL refuses parameters a statement does not reference. */
class Params {
  readonly values: unknown[] = [];
  private readonly slots = new Map<string, string>();
  bind(name: string, value: unknown): string {
    let slot = this.slots.get(name);
    if (!slot) {
      this.values.push(value);
      slot = `$${this.values.length}`;
      this.slots.set(name, slot);
    }
    return slot;
  }
}

interface Source {
  table: string;
  title: string;
  text: string;
  status: string;
  /** The result's project column (`e.uuid` for a project itself). */
  project: string | null;
}

const SOURCES: Record<SearchEntityType, Source> = {
  task: { table: 'task', title: 'title', text: 'description', status: 'e.status', project: 'e.project_uuid' },
  idea: { table: 'idea', title: 'title', text: 'content', status: 'e.status', project: 'e.project_uuid' },
  proposal: { table: 'proposal', title: 'title', text: 'description', status: 'e.status', project: 'e.project_uuid' },
  document: { table: 'document', title: 'title', text: 'content', status: 'NULL::text', project: 'e.project_uuid' },
  project: { table: 'project', title: 'name', text: 'description', status: 'NULL::text', project: 'e.uuid' },
  project_group: { table: 'project_group', title: 'name', text: 'description', status: 'NULL::text', project: null },
};

interface Scope {
  /** null = the whole company. */
  projectUuids: string[] | null;
  groupUuid: string | null;
}

/** One entity type's matches; `$company`, `$pattern` and `$exact` are bound by the caller. */
function branch(type: SearchEntityType, scope: Scope, q: Params, slot: { company: string; pattern: string; exact: string }): string {
  const s = SOURCES[type];
  let where = `e.company_uuid = ${slot.company}`;
  if (scope.projectUuids) {
    // Groups are found by a global search and by a search of their own group scope.
    where += s.project ? ` AND ${s.project} = ANY(${q.bind('projects', scope.projectUuids)}::uuid[])` : ` AND e.uuid = ${q.bind('group', scope.groupUuid)}::uuid`;
  }
  const like = (col: string): string => `e.${col} ILIKE ${slot.pattern} ESCAPE '\\'`;
  const exactSql = `e.uuid::text = ${slot.exact}`;
  return `SELECT '${type}'::text AS entity_type, e.uuid, e.${s.title} AS title, ${s.status} AS status,
      ${s.project ?? 'NULL::uuid'} AS project_uuid, ${s.project ? 'p.name' : 'NULL::text'} AS project_name, e.updated_at,
      (${exactSql}) AS exact
    FROM ${s.table} e ${s.project ? `JOIN project p ON p.uuid = ${s.project}` : ''}
    WHERE ${where} AND (${like(s.title)} OR ${like(s.text)} OR ${exactSql})`;
}

interface ResultRow {
  entity_type: SearchEntityType;
  uuid: string;
  title: string;
  status: string | null;
  project_uuid: string | null;
  project_name: string | null;
  updated_at: Date;
}

function invalid(field: string, message: string): ValidationError {
  return new ValidationError('Invalid arguments', [{ field, message }]);
}

/** Company-wide text search (svc_search) and the @mention picker (svc_search_mentionables). */
@Injectable()
export class SearchService {
  constructor(private readonly db: DataSource) {}

  async search(actor: Actor, input: SearchInput): Promise<{ results: SearchResult[] } & PageResult & { counts: SearchCounts }> {
    const p = paging(input);
    const query = typeof input.query === 'string' ? input.query.trim() : '';
    if (query.length < 1 || query.length > MAX_SEARCH_QUERY) throw invalid('query', `must be 1-${MAX_SEARCH_QUERY} characters`);
    const scope = (input.scope ?? 'global') as SearchScope;
    if (!SEARCH_SCOPES.includes(scope)) throw invalid('scope', `must be one of ${SEARCH_SCOPES.join(', ')}`);
    const requested = input.entityTypes?.length ? input.entityTypes : SEARCH_ENTITY_TYPES;
    for (const t of requested) if (!(SEARCH_ENTITY_TYPES as readonly string[]).includes(t)) throw invalid('entityTypes', `must be a subset of ${SEARCH_ENTITY_TYPES.join(', ')}`);
    if (scope !== 'global') {
      if (input.scopeUuid == null || input.scopeUuid === '') throw new ValidationError('scopeUuid is required unless scope is global', [{ field: 'scopeUuid', message: 'required unless scope is global' }]);
      if (!isUuid(input.scopeUuid)) throw invalid('scopeUuid', 'must be a uuid');
    }

    const em = this.db.manager;
    const company = actor.companyUuid;
    const scoped: Scope = { projectUuids: null, groupUuid: null };
    if (scope === 'project') {
      const rows: unknown[] = await em.query('SELECT 1 FROM project WHERE uuid = $1 AND company_uuid = $2', [input.scopeUuid, company]);
      if (!rows.length) throw new NotFoundError('Project');
      scoped.projectUuids = [input.scopeUuid!];
    } else if (scope === 'group') {
      const rows: unknown[] = await em.query('SELECT 1 FROM project_group WHERE uuid = $1 AND company_uuid = $2', [input.scopeUuid, company]);
      if (!rows.length) throw new NotFoundError('Project group');
      scoped.groupUuid = input.scopeUuid!;
      const projects: Array<{ uuid: string }> = await em.query('SELECT uuid FROM project WHERE group_uuid = $1 AND company_uuid = $2', [scoped.groupUuid, company]);
      scoped.projectUuids = projects.map((r) => r.uuid);
    }

    // A project scope holds no group; every other type is restricted to the scope's projects.
    const types = SEARCH_ENTITY_TYPES.filter((t) => requested.includes(t) && !(scope === 'project' && t === 'project_group'));
    const counts: SearchCounts = { tasks: 0, ideas: 0, proposals: 0, documents: 0, projects: 0, projectGroups: 0 };
    if (!types.length) return { results: [], page: p.page, pageSize: p.pageSize, total: 0, counts };

    const q = new Params();
    const slot = {
      company: q.bind('company', company),
      pattern: q.bind('pattern', containsPattern(query)),
      exact: q.bind('exact', isUuid(query) ? query.toLowerCase() : ''),
    };
    const union = types.map((t) => branch(t, scoped, q, slot)).join('\nUNION ALL\n');
    const countRows: Array<{ entity_type: SearchEntityType; n: string }> = await em.query(
      `SELECT entity_type, count(*) AS n FROM (${union}) m GROUP BY entity_type`,
      q.values,
    );
    let total = 0;
    for (const r of countRows) {
      counts[COUNT_KEYS[r.entity_type]] = Number(r.n);
      total += Number(r.n);
    }
    const n = q.values.length;
    const rows: ResultRow[] = await em.query(
      `SELECT * FROM (${union}) m ORDER BY exact DESC, updated_at DESC, uuid ASC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...q.values, p.pageSize, offsetOf(p)],
    );

    const texts = await this.texts(company, rows);
    const results = rows.map((r) => ({
      entityType: r.entity_type,
      uuid: r.uuid,
      title: r.title,
      snippet: searchSnippet(texts.get(r.uuid), query),
      status: r.status,
      projectUuid: r.project_uuid,
      projectName: r.project_name,
      updatedAt: r.updated_at.toISOString(),
    }));
    return { results, page: p.page, pageSize: p.pageSize, total, counts };
  }

  async mentionables(actor: Actor, input: { query?: string | null; page?: number; pageSize?: number }): Promise<{ mentionables: Mentionable[] } & PageResult> {
    const p = paging(input);
    const query = typeof input.query === 'string' ? input.query.trim() : '';
    if (query.length > MAX_MENTIONABLES_QUERY) throw invalid('query', `must be at most ${MAX_MENTIONABLES_QUERY} characters`);
    const union = `
      SELECT 'user'::text AS type, uuid, name, email FROM app_user
        WHERE company_uuid = $1 AND (name ILIKE $2 ESCAPE '\\' OR email ILIKE $2 ESCAPE '\\')
      UNION ALL
      SELECT 'agent'::text, uuid, name, NULL::text FROM agent
        WHERE company_uuid = $1 AND archived_at IS NULL AND name ILIKE $2 ESCAPE '\\'`;
    const params = [actor.companyUuid, containsPattern(query)];
    const em = this.db.manager;
    const [{ n }]: Array<{ n: string }> = await em.query(`SELECT count(*) AS n FROM (${union}) m`, params);
    // Case-insensitive by name in a fixed collation, so the order is the same on every server.
    const rows: Mentionable[] = await em.query(
      `SELECT type, uuid, name, email FROM (${union}) m ORDER BY lower(name) COLLATE "C", name COLLATE "C", uuid LIMIT $3 OFFSET $4`,
      [...params, p.pageSize, offsetOf(p)],
    );
    return { mentionables: rows.map((r) => ({ type: r.type, uuid: r.uuid, name: r.name, email: r.email })), page: p.page, pageSize: p.pageSize, total: Number(n) };
  }

  /** The searched text of each result row, for its snippet (only the page's rows are read). */
  private async texts(company: string, rows: Array<{ entity_type: SearchEntityType; uuid: string }>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const type of SEARCH_ENTITY_TYPES) {
      const uuids = rows.filter((r) => r.entity_type === type).map((r) => r.uuid);
      if (!uuids.length) continue;
      const s = SOURCES[type];
      const found: Array<{ uuid: string; text: string }> = await this.db.manager.query(
        `SELECT e.uuid, e.${s.text} AS text FROM ${s.table} e WHERE e.company_uuid = $1 AND e.uuid = ANY($2::uuid[])`,
        [company, uuids],
      );
      for (const f of found) out.set(f.uuid, f.text);
    }
    return out;
  }
}
