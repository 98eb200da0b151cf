import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { offsetOf, paging, type PageResult } from '../../shared/validation/paging.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { searchSnippet } from './domain/search-text.js';
import { SearchRepository, type SearchScopeFilter } from './search.repository.js';

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

function invalid(field: string, message: string): ValidationError {
  return new ValidationError('Invalid arguments', [{ field, message }]);
}

/** Company-wide text search (svc_search) and the @mention picker (svc_search_mentionables). */
@Injectable()
export class SearchService {
  constructor(private readonly searches: SearchRepository) {}

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

    const company = actor.companyUuid;
    const scoped: SearchScopeFilter = { projectUuids: null, groupUuid: null };
    if (scope === 'project') {
      if (!(await this.searches.projectExists(input.scopeUuid!, company))) throw new NotFoundError('Project');
      scoped.projectUuids = [input.scopeUuid!];
    } else if (scope === 'group') {
      if (!(await this.searches.groupExists(input.scopeUuid!, company))) throw new NotFoundError('Project group');
      scoped.groupUuid = input.scopeUuid!;
      scoped.projectUuids = await this.searches.groupProjects(scoped.groupUuid, company);
    }

    // A project scope holds no group; every other type is restricted to the scope's projects.
    const types = SEARCH_ENTITY_TYPES.filter((t) => requested.includes(t) && !(scope === 'project' && t === 'project_group'));
    const counts: SearchCounts = { tasks: 0, ideas: 0, proposals: 0, documents: 0, projects: 0, projectGroups: 0 };
    if (!types.length) return { results: [], page: p.page, pageSize: p.pageSize, total: 0, counts };

    const { counts: countRows, rows } = await this.searches.matches(company, scoped, types, query, p.pageSize, offsetOf(p));
    let total = 0;
    for (const r of countRows) {
      counts[COUNT_KEYS[r.entity_type]] = Number(r.n);
      total += Number(r.n);
    }

    const texts = await this.searches.texts(company, rows);
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
    const { total, rows } = await this.searches.mentionables(actor.companyUuid, query, p.pageSize, offsetOf(p));
    return { mentionables: rows.map((r) => ({ type: r.type, uuid: r.uuid, name: r.name, email: r.email })), page: p.page, pageSize: p.pageSize, total };
  }
}
