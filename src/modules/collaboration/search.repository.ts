import { Repository } from '../../shared/database/repository.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { containsPattern } from './domain/search-text.js';
import type { Mentionable, SearchEntityType } from './search.service.js';

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

export interface SearchScopeFilter {
  /** null = the whole company. */
  projectUuids: string[] | null;
  groupUuid: string | null;
}

/** One entity type's matches; `$company`, `$pattern` and `$exact` are bound by the caller. */
function branch(type: SearchEntityType, scope: SearchScopeFilter, q: Params, slot: { company: string; pattern: string; exact: string }): string {
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

export interface SearchRow {
  entity_type: SearchEntityType;
  uuid: string;
  title: string;
  status: string | null;
  project_uuid: string | null;
  project_name: string | null;
  updated_at: Date;
}

/**
 * The search queries of svc_search and svc_search_mentionables: plain reads across the owners' tables (README "Table
 * ownership": reading another module's table is fine), always within the caller's company.
 */
export class SearchRepository extends Repository {
  async projectExists(projectUuid: string, companyUuid: string): Promise<boolean> {
    const rows: unknown[] = await this.em.query('SELECT 1 FROM project WHERE uuid = $1 AND company_uuid = $2', [projectUuid, companyUuid]);
    return rows.length > 0;
  }

  async groupExists(groupUuid: string, companyUuid: string): Promise<boolean> {
    const rows: unknown[] = await this.em.query('SELECT 1 FROM project_group WHERE uuid = $1 AND company_uuid = $2', [groupUuid, companyUuid]);
    return rows.length > 0;
  }

  async groupProjects(groupUuid: string, companyUuid: string): Promise<string[]> {
    const projects: Array<{ uuid: string }> = await this.em.query('SELECT uuid FROM project WHERE group_uuid = $1 AND company_uuid = $2', [groupUuid, companyUuid]);
    return projects.map((r) => r.uuid);
  }

  /**
   * The matches of `query` among the types within the scope: their count per type, then one page of them, exact uuid
   * matches first, then most recently updated.
   */
  async matches(
    companyUuid: string,
    scope: SearchScopeFilter,
    types: readonly SearchEntityType[],
    query: string,
    limit: number,
    offset: number,
  ): Promise<{ counts: Array<{ entity_type: SearchEntityType; n: string }>; rows: SearchRow[] }> {
    const q = new Params();
    const slot = {
      company: q.bind('company', companyUuid),
      pattern: q.bind('pattern', containsPattern(query)),
      exact: q.bind('exact', isUuid(query) ? query.toLowerCase() : ''),
    };
    const union = types.map((t) => branch(t, scope, q, slot)).join('\nUNION ALL\n');
    const counts: Array<{ entity_type: SearchEntityType; n: string }> = await this.em.query(`SELECT entity_type, count(*) AS n FROM (${union}) m GROUP BY entity_type`, q.values);
    const n = q.values.length;
    const rows: SearchRow[] = await this.em.query(`SELECT * FROM (${union}) m ORDER BY exact DESC, updated_at DESC, uuid ASC LIMIT $${n + 1} OFFSET $${n + 2}`, [
      ...q.values,
      limit,
      offset,
    ]);
    return { counts, rows };
  }

  /** The searched text of each row, for its snippet (only the given rows are read). */
  async texts(companyUuid: string, rows: ReadonlyArray<{ entity_type: SearchEntityType; uuid: string }>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const type of Object.keys(SOURCES) as SearchEntityType[]) {
      const uuids = rows.filter((r) => r.entity_type === type).map((r) => r.uuid);
      if (!uuids.length) continue;
      const s = SOURCES[type];
      const found: Array<{ uuid: string; text: string }> = await this.em.query(
        `SELECT e.uuid, e.${s.text} AS text FROM ${s.table} e WHERE e.company_uuid = $1 AND e.uuid = ANY($2::uuid[])`,
        [companyUuid, uuids],
      );
      for (const f of found) out.set(f.uuid, f.text);
    }
    return out;
  }

  /** Users (by name or email) and non-archived agents (by name) matching `query`: their total, then one page by name. */
  async mentionables(companyUuid: string, query: string, limit: number, offset: number): Promise<{ total: number; rows: Mentionable[] }> {
    const union = `
      SELECT 'user'::text AS type, uuid, name, email FROM app_user
        WHERE company_uuid = $1 AND (name ILIKE $2 ESCAPE '\\' OR email ILIKE $2 ESCAPE '\\')
      UNION ALL
      SELECT 'agent'::text, uuid, name, NULL::text FROM agent
        WHERE company_uuid = $1 AND archived_at IS NULL AND name ILIKE $2 ESCAPE '\\'`;
    const params = [companyUuid, containsPattern(query)];
    const [{ n }]: Array<{ n: string }> = await this.em.query(`SELECT count(*) AS n FROM (${union}) m`, params);
    // Case-insensitive by name in a fixed collation, so the order is the same on every server.
    const rows: Mentionable[] = await this.em.query(
      `SELECT type, uuid, name, email FROM (${union}) m ORDER BY lower(name) COLLATE "C", name COLLATE "C", uuid LIMIT $3 OFFSET $4`,
      [...params, limit, offset],
    );
    return { total: Number(n), rows };
  }
}
