import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { HttpClient, type HttpResult } from '../utils/http.js';
import {
  companyChecksum,
  leaks,
  secretsOf,
  seedTenant,
  syncStreams,
  TenantStreams,
  unclassifiedTables,
  uuidsIn,
  type Secrets,
  type Tenant,
} from '../utils/tenant-seed.js';
import { mcpClient, rawCall } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

/**
 * Tenant-isolation matrix: company B (its user session, its admin agent's key, its admin agent's tools) aims every
 * REST route and every MCP tool at company A's records. Routes come from the OpenAPI document and tools from
 * B's tools/list, and every uuid-bearing path, query, body or argument field must be exercised with an A value, so a
 * new route, tool or field without a case fails the suite. Every answer to B is swept for A's identifiers, A's rows
 * are checksummed around every write attempt, and the four SSE streams (A and B, changes and notifications) are
 * checked for cross-tenant frames while both companies mutate.
 */

type Expect =
  /** 404 NOT_FOUND (tools: isError NOT_FOUND), indistinguishable from the same call with a random uuid. */
  | 'not_found'
  /** A documented refusal other than NOT_FOUND, also indistinguishable from a random uuid. */
  | { status: number; code: string }
  /** Succeeds for B with B's own data only (the sweep proves nothing of A is in it). */
  | 'own'
  /** Anything but a 5xx; only the sweep applies (public and transport routes). */
  | 'any'
  /** Covered by the stream tests below. */
  | 'sse'
  /** Covered by the tool matrix below. */
  | 'mcp';

interface RestCase {
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  expect: Expect;
  /** Run with a session of its own (logout). */
  fresh?: boolean;
  /** A uuid of B's that the (successful) answer must contain: B's own data is there, A's is not. */
  shows?: string;
}

interface ToolCase {
  tool: string;
  args: Record<string, unknown>;
  expect: Expect;
  headers?: Record<string, string>;
  /** As RestCase.shows. */
  shows?: string;
}

const UUID_FIELD = /uuid|dependson/i;
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const ROUTES_TAKING_KEYS = [
  'GET /api/notifications',
  'GET /api/notifications/unread-count',
  'POST /api/notifications/read-all',
  'GET /api/notifications/preferences',
  'PUT /api/notifications/preferences',
  'PATCH /api/notifications/{uuid}/read',
  'PATCH /api/notifications/{uuid}/archive',
  'PATCH /api/notifications/{uuid}/unarchive',
  'PATCH /api/notifications/{uuid}/snooze',
];

function isUuidSchema(s: any): boolean {
  return !!s && (s.format === 'uuid' || s.pattern === UUID_PATTERN || (s.type === 'array' && isUuidSchema(s.items)));
}

/** Dotted paths (`tasks[].dependsOnTaskUuids`) of the uuid-bearing fields of a JSON schema. */
function uuidFields(schema: any, resolve: (ref: string) => any, prefix = '', depth = 0): string[] {
  if (!schema || depth > 6) return [];
  if (schema.$ref) return uuidFields(resolve(schema.$ref), resolve, prefix, depth + 1);
  const out: string[] = [];
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const s of schema[k] ?? []) out.push(...uuidFields(s, resolve, prefix, depth + 1));
  if (schema.type === 'array' || schema.items) out.push(...uuidFields(schema.items, resolve, `${prefix}[]`, depth + 1));
  for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (UUID_FIELD.test(name) || isUuidSchema(sub)) out.push(path);
    out.push(...uuidFields(sub, resolve, path, depth + 1));
  }
  return [...new Set(out)];
}

/** Dotted paths of the values in `value` that carry one of `uuids`. */
function fieldsCarrying(value: unknown, uuids: Set<string>, prefix = ''): string[] {
  if (typeof value === 'string') return uuidsIn(value).some((u) => uuids.has(u)) ? [prefix] : [];
  if (Array.isArray(value)) {
    const inner = value.flatMap((v) => fieldsCarrying(v, uuids, `${prefix}[]`));
    return inner.map((p) => (p === `${prefix}[]` && value.every((v) => typeof v === 'string') ? prefix : p));
  }
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => fieldsCarrying(v, uuids, prefix ? `${prefix}.${k}` : k));
  return [];
}

/** The same request with every A uuid swapped for a fresh random one (consistently). */
function withRandomUuids<T>(value: T, uuids: Set<string>): T {
  const map = new Map<string, string>();
  return JSON.parse(
    JSON.stringify(value).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (u) => {
      if (!uuids.has(u.toLowerCase())) return u;
      if (!map.has(u)) map.set(u, randomUUID());
      return map.get(u)!;
    }),
  ) as T;
}

const normalise = (s: unknown): string => String(s ?? '').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>');

function restCases(A: Tenant, B: Tenant): RestCase[] {
  const nf = 'not_found' as const;
  const crit = [{ description: 'B criterion' }];
  const question = { id: 'x1', text: 'B question?', category: 'functional', options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }] };
  const targets = [
    ['task', A.taskUuid],
    ['idea', A.ideaUuid],
    ['proposal', A.approvedProposalUuid],
    ['document', A.guideUuid],
  ] as const;
  return [
    { route: 'POST /api/auth/login', body: { email: B.user.email, password: B.user.password }, expect: 'own' },
    { route: 'POST /api/auth/login', body: { email: A.user.email, password: 'not-the-password' }, expect: { status: 401, code: 'UNAUTHORIZED' } },
    { route: 'POST /api/auth/logout', expect: 'own', fresh: true },
    { route: 'GET /api/auth/me', expect: 'own', shows: B.user.uuid },

    { route: 'GET /api/agents', expect: 'own', shows: B.dev.uuid },
    { route: 'POST /api/agents', body: { name: 'B extra agent', preset: 'developer_agent' }, expect: 'own' },
    { route: 'GET /api/agents/{uuid}', params: { uuid: A.dev.uuid }, expect: nf },
    { route: 'PATCH /api/agents/{uuid}', params: { uuid: A.dev.uuid }, body: { name: 'Renamed by B' }, expect: nf },
    { route: 'DELETE /api/agents/{uuid}', params: { uuid: A.spare.uuid }, expect: nf },
    { route: 'POST /api/agents/{uuid}/keys', params: { uuid: A.spare.uuid }, body: { name: 'B key' }, expect: nf },
    { route: 'GET /api/agents/{uuid}/keys', params: { uuid: A.dev.uuid }, expect: nf },
    { route: 'DELETE /api/agents/{uuid}/keys/{keyUuid}', params: { uuid: A.spare.uuid, keyUuid: A.spare.keyUuid }, expect: nf },
    { route: 'DELETE /api/agents/{uuid}/keys/{keyUuid}', params: { uuid: B.spare.uuid, keyUuid: A.spare.keyUuid }, expect: nf },

    { route: 'GET /api/agents/{uuid}/grants', params: { uuid: A.dev.uuid }, expect: nf },
    { route: 'DELETE /api/agents/{uuid}/grants/{grantId}', params: { uuid: A.spare.uuid, grantId: 'some-grant' }, expect: nf },
    // OAuth (off here: no PUBLIC_URL): public discovery documents and the sign-in pages, which take no tenant input.
    ...['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/api/mcp'].map(
      (path): RestCase => ({ route: `GET ${path}`, expect: 'any' }),
    ),
    { route: 'DELETE /api/agents/{uuid}/grants/{grantId}', params: { uuid: B.spare.uuid, grantId: A.dev.uuid }, expect: nf },
    { route: 'GET /oauth/interaction/{uid}', params: { uid: A.dev.uuid }, expect: 'any' },
    { route: 'POST /oauth/reg', body: { client_name: 'B host', redirect_uris: ['http://127.0.0.1:9/callback'] }, expect: 'any' },
    ...['login', 'consent', 'abort'].map((step): RestCase => ({ route: `POST /oauth/interaction/{uid}/${step}`, params: { uid: A.dev.uuid }, expect: 'any' })),
    { route: 'GET /health/live', expect: 'any' },
    { route: 'GET /health/ready', expect: 'any' },
    { route: 'GET /metrics', expect: 'any' },

    ...targets.map(([targetType, targetUuid]): RestCase => ({ route: 'GET /api/comments', query: { targetType, targetUuid }, expect: nf })),
    ...targets.map(([targetType, targetUuid]): RestCase => ({ route: 'POST /api/comments', body: { targetType, targetUuid, content: 'B writes here' }, expect: nf })),
    ...targets
      .filter(([t]) => t !== 'document')
      .map(([targetType, targetUuid]): RestCase => ({
        route: 'POST /api/references',
        body: { targetType, targetUuid, type: 'docs', url: 'https://b.example/x', title: 'B ref' },
        expect: nf,
      })),
    { route: 'PATCH /api/references/{uuid}', params: { uuid: A.referenceUuid }, body: { title: 'B was here' }, expect: nf },
    { route: 'DELETE /api/references/{uuid}', params: { uuid: A.referenceUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}/activity', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}/activity', params: { uuid: B.projectUuid }, query: { targetType: 'task', targetUuid: A.taskUuid }, expect: 'own' },
    { route: 'GET /api/search', query: { q: A.marker }, expect: 'own' },
    { route: 'GET /api/search', query: { q: A.taskUuid }, expect: 'own' },
    { route: 'GET /api/search', query: { q: B.marker, entityTypes: 'task,idea,proposal,document,project,project_group' }, expect: 'own', shows: B.taskUuid },
    { route: 'GET /api/search', query: { q: 'task', scope: 'project', scopeUuid: A.projectUuid }, expect: nf },
    { route: 'GET /api/search', query: { q: 'task', scope: 'group', scopeUuid: A.groupUuid }, expect: nf },
    { route: 'GET /api/mentionables', query: { q: A.marker }, expect: 'own' },
    { route: 'GET /api/mentionables', expect: 'own', shows: B.user.uuid },

    { route: 'GET /api/projects', expect: 'own', shows: B.projectUuid },
    { route: 'POST /api/projects', body: { name: 'B new project' }, expect: 'own' },
    { route: 'POST /api/projects', body: { name: 'B sneaky project', groupUuid: A.groupUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'PATCH /api/projects/{uuid}', params: { uuid: A.projectUuid }, body: { name: 'B renamed' }, expect: nf },
    { route: 'PATCH /api/projects/{uuid}', params: { uuid: B.sideProjectUuid }, body: { groupUuid: A.groupUuid }, expect: nf },
    { route: 'DELETE /api/projects/{uuid}', params: { uuid: A.sideProjectUuid }, expect: nf },
    { route: 'GET /api/project-groups', expect: 'own', shows: B.groupUuid },
    { route: 'POST /api/project-groups', body: { name: 'B new group' }, expect: 'own' },
    { route: 'GET /api/project-groups/{uuid}', params: { uuid: A.groupUuid }, expect: nf },
    { route: 'PATCH /api/project-groups/{uuid}', params: { uuid: A.groupUuid }, body: { name: 'B renamed' }, expect: nf },
    { route: 'DELETE /api/project-groups/{uuid}', params: { uuid: A.groupUuid }, expect: nf },
    { route: 'GET /api/project-groups/{uuid}/dashboard', params: { uuid: A.groupUuid }, expect: nf },

    { route: 'GET /api/projects/{uuid}/ideas', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}/ideas', params: { uuid: B.projectUuid }, query: { available: 'true' }, expect: 'own' },
    { route: 'POST /api/projects/{uuid}/ideas', params: { uuid: A.projectUuid }, body: { title: 'B idea' }, expect: nf },
    { route: 'POST /api/projects/{uuid}/ideas', params: { uuid: B.projectUuid }, body: { title: 'B idea', parentUuid: A.containerUuid }, expect: nf },
    { route: 'GET /api/ideas/{uuid}', params: { uuid: A.ideaUuid }, expect: nf },
    { route: 'PATCH /api/ideas/{uuid}', params: { uuid: A.openIdeaUuid }, body: { title: 'B renamed' }, expect: nf },
    { route: 'PATCH /api/ideas/{uuid}', params: { uuid: B.openIdeaUuid }, body: { parentUuid: A.containerUuid }, expect: nf },
    { route: 'DELETE /api/ideas/{uuid}', params: { uuid: A.openIdeaUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/claim', params: { uuid: A.openIdeaUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/release', params: { uuid: A.pendingIdeaUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/move', params: { uuid: A.openIdeaUuid }, body: { targetProjectUuid: B.sideProjectUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/move', params: { uuid: B.openIdeaUuid }, body: { targetProjectUuid: A.sideProjectUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/assign', params: { uuid: A.openIdeaUuid }, body: { assigneeType: 'agent', assigneeUuid: B.pm.uuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/assign', params: { uuid: B.openIdeaUuid }, body: { assigneeType: 'agent', assigneeUuid: A.pm.uuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/assign', params: { uuid: B.openIdeaUuid }, body: { assigneeType: 'user', assigneeUuid: A.user.uuid }, expect: nf },
    { route: 'GET /api/ideas/{uuid}/elaboration', params: { uuid: A.ideaUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/elaboration/rounds', params: { uuid: A.ideaUuid }, body: { depth: 'minimal', questions: [question] }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/elaboration/answers', params: { uuid: A.pendingIdeaUuid }, body: { answers: [{ questionId: 'p1', selectedOptionId: 'a' }] }, expect: nf },
    {
      route: 'POST /api/ideas/{uuid}/elaboration/answers',
      params: { uuid: B.pendingIdeaUuid },
      body: { roundUuid: A.pendingRoundUuid, answers: [{ questionId: 'p1', selectedOptionId: 'a' }] },
      expect: nf,
    },
    { route: 'POST /api/ideas/{uuid}/elaboration/resolve', params: { uuid: A.pendingIdeaUuid }, expect: nf },
    { route: 'POST /api/ideas/{uuid}/elaboration/skip', params: { uuid: A.pendingIdeaUuid }, body: { reason: 'B says so' }, expect: nf },

    { route: 'GET /api/projects/{uuid}/tasks', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}/tasks', params: { uuid: B.projectUuid }, query: { proposalUuids: A.approvedProposalUuid }, expect: 'own' },
    { route: 'POST /api/projects/{uuid}/tasks', params: { uuid: A.projectUuid }, body: { tasks: [{ title: 'B task', acceptanceCriteriaItems: crit }] }, expect: nf },
    {
      route: 'POST /api/projects/{uuid}/tasks',
      params: { uuid: B.projectUuid },
      body: { proposalUuid: A.approvedProposalUuid, tasks: [{ title: 'B task', acceptanceCriteriaItems: crit }] },
      expect: nf,
    },
    {
      route: 'POST /api/projects/{uuid}/tasks',
      params: { uuid: B.projectUuid },
      body: { tasks: [{ title: 'B task', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [A.taskUuid] }] },
      expect: nf,
    },
    {
      // draftUuid is a batch-local label: an A uuid there names nothing of A's.
      route: 'POST /api/projects/{uuid}/tasks',
      params: { uuid: B.projectUuid },
      body: {
        tasks: [
          { title: 'B batch first', acceptanceCriteriaItems: crit, draftUuid: A.taskDraftUuid },
          { title: 'B batch second', acceptanceCriteriaItems: crit, dependsOnDraftUuids: [A.taskDraftUuid] },
        ],
      },
      expect: 'own',
    },
    { route: 'GET /api/projects/{uuid}/tasks/available', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}/tasks/available', params: { uuid: B.projectUuid }, query: { proposalUuids: A.approvedProposalUuid }, expect: 'own' },
    { route: 'GET /api/projects/{uuid}/tasks/unblocked', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'GET /api/projects/{uuid}/tasks/unblocked', params: { uuid: B.projectUuid }, query: { proposalUuids: A.approvedProposalUuid }, expect: 'own' },
    { route: 'GET /api/tasks/{uuid}', params: { uuid: A.taskUuid }, expect: nf },
    { route: 'GET /api/tasks/{uuid}', params: { uuid: A.taskUuid.toUpperCase() }, expect: nf },
    { route: 'PATCH /api/tasks/{uuid}', params: { uuid: A.manualTaskUuid }, body: { title: 'B renamed' }, expect: nf },
    { route: 'PATCH /api/tasks/{uuid}', params: { uuid: B.manualTaskUuid }, body: { addDependsOn: [A.taskUuid] }, expect: nf },
    // Removing a missing edge is a no-op (docs/domain.md §6.4): an A task is never an edge of B's task.
    { route: 'PATCH /api/tasks/{uuid}', params: { uuid: B.manualTaskUuid }, body: { removeDependsOn: [A.taskUuid] }, expect: 'own' },
    { route: 'DELETE /api/tasks/{uuid}', params: { uuid: A.manualTaskUuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/claim', params: { uuid: A.manualTaskUuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/release', params: { uuid: A.taskUuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/submit', params: { uuid: A.taskUuid }, body: { summary: 'B done' }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/verify', params: { uuid: A.taskUuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/reopen', params: { uuid: A.taskUuid }, body: { force: true }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/close', params: { uuid: A.taskUuid }, body: { reason: 'B closes' }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/assign', params: { uuid: A.manualTaskUuid }, body: { assigneeType: 'agent', assigneeUuid: B.dev.uuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/assign', params: { uuid: B.manualTaskUuid }, body: { assigneeType: 'agent', assigneeUuid: A.dev.uuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/assign', params: { uuid: B.manualTaskUuid }, body: { assigneeType: 'user', assigneeUuid: A.user.uuid }, expect: nf },
    { route: 'POST /api/tasks/{uuid}/criteria/marks', params: { uuid: A.taskUuid }, body: { criteria: [{ uuid: A.criterionUuid, status: 'passed' }] }, expect: nf },
    {
      route: 'POST /api/tasks/{uuid}/criteria/marks',
      params: { uuid: B.adminTaskUuid },
      body: { criteria: [{ uuid: A.adminCriterionUuid, status: 'passed' }] },
      expect: { status: 400, code: 'VALIDATION_ERROR' },
    },
    { route: 'POST /api/tasks/{uuid}/criteria/self-check', params: { uuid: A.taskUuid }, body: { criteria: [{ uuid: A.criterionUuid, devStatus: 'passed' }] }, expect: nf },
    {
      route: 'POST /api/tasks/{uuid}/criteria/self-check',
      params: { uuid: B.adminTaskUuid },
      body: { criteria: [{ uuid: A.adminCriterionUuid, devStatus: 'passed' }] },
      expect: { status: 400, code: 'VALIDATION_ERROR' },
    },
    { route: 'POST /api/tasks/{uuid}/work-reports', params: { uuid: A.taskUuid }, body: { report: 'B report' }, expect: nf },
    { route: 'GET /api/sessions', expect: 'own', shows: B.devSessionUuid },
    { route: 'GET /api/sessions', query: { agentUuid: A.dev.uuid }, expect: 'own' },

    { route: 'GET /api/projects/{uuid}/proposals', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'POST /api/projects/{uuid}/proposals', params: { uuid: A.projectUuid }, body: { title: 'B proposal', inputType: 'idea', inputUuids: [B.openIdeaUuid] }, expect: nf },
    { route: 'POST /api/projects/{uuid}/proposals', params: { uuid: B.projectUuid }, body: { title: 'B proposal', inputType: 'idea', inputUuids: [A.ideaUuid] }, expect: nf },
    { route: 'POST /api/projects/{uuid}/proposals', params: { uuid: B.projectUuid }, body: { title: 'B proposal', inputType: 'document', inputUuids: [A.guideUuid] }, expect: nf },
    { route: 'GET /api/proposals/{uuid}', params: { uuid: A.approvedProposalUuid }, query: { section: 'full' }, expect: nf },
    { route: 'PATCH /api/proposals/{uuid}', params: { uuid: A.draftProposalUuid }, body: { title: 'B renamed' }, expect: nf },
    { route: 'DELETE /api/proposals/{uuid}', params: { uuid: A.draftProposalUuid }, expect: nf },
    { route: 'GET /api/proposals/{uuid}/validation', params: { uuid: A.draftProposalUuid }, expect: nf },
    { route: 'POST /api/proposals/{uuid}/submit', params: { uuid: A.draftProposalUuid }, expect: nf },
    { route: 'POST /api/proposals/{uuid}/approve', params: { uuid: A.pendingProposalUuid }, body: { reviewNote: 'B approves' }, expect: nf },
    { route: 'POST /api/proposals/{uuid}/reject', params: { uuid: A.pendingProposalUuid }, body: { reviewNote: 'B rejects' }, expect: nf },
    { route: 'POST /api/proposals/{uuid}/close', params: { uuid: A.pendingProposalUuid }, body: { reviewNote: 'B closes' }, expect: nf },
    { route: 'POST /api/proposals/{uuid}/revoke', params: { uuid: A.approvedProposalUuid }, body: { reviewNote: 'B revokes' }, expect: nf },
    { route: 'POST /api/proposals/{uuid}/document-drafts', params: { uuid: A.draftProposalUuid }, body: { type: 'prd', title: 'B doc', content: 'B text' }, expect: nf },
    { route: 'PATCH /api/proposals/{uuid}/document-drafts/{draftUuid}', params: { uuid: A.draftProposalUuid, draftUuid: A.docDraftUuid }, body: { title: 'B' }, expect: nf },
    { route: 'PATCH /api/proposals/{uuid}/document-drafts/{draftUuid}', params: { uuid: B.draftProposalUuid, draftUuid: A.docDraftUuid }, body: { title: 'B' }, expect: nf },
    { route: 'DELETE /api/proposals/{uuid}/document-drafts/{draftUuid}', params: { uuid: A.draftProposalUuid, draftUuid: A.docDraftUuid }, expect: nf },
    // Removing an absent draft succeeds unchanged (docs/tool-conventions.md §5.6): A's draft is absent from B's proposal.
    { route: 'DELETE /api/proposals/{uuid}/document-drafts/{draftUuid}', params: { uuid: B.draftProposalUuid, draftUuid: A.docDraftUuid }, expect: 'own' },
    { route: 'POST /api/proposals/{uuid}/task-drafts', params: { uuid: A.draftProposalUuid }, body: { title: 'B task', acceptanceCriteriaItems: crit }, expect: nf },
    {
      route: 'POST /api/proposals/{uuid}/task-drafts',
      params: { uuid: B.draftProposalUuid },
      body: { title: 'B task', acceptanceCriteriaItems: crit, dependsOnDraftUuids: [A.taskDraftUuid] },
      expect: { status: 400, code: 'VALIDATION_ERROR' },
    },
    { route: 'PATCH /api/proposals/{uuid}/task-drafts/{draftUuid}', params: { uuid: A.draftProposalUuid, draftUuid: A.taskDraftUuid }, body: { title: 'B' }, expect: nf },
    { route: 'PATCH /api/proposals/{uuid}/task-drafts/{draftUuid}', params: { uuid: B.draftProposalUuid, draftUuid: A.taskDraftUuid }, body: { title: 'B' }, expect: nf },
    {
      route: 'PATCH /api/proposals/{uuid}/task-drafts/{draftUuid}',
      params: { uuid: B.draftProposalUuid, draftUuid: B.taskDraftUuid },
      body: { dependsOnDraftUuids: [A.taskDraftUuid] },
      expect: { status: 400, code: 'VALIDATION_ERROR' },
    },
    { route: 'DELETE /api/proposals/{uuid}/task-drafts/{draftUuid}', params: { uuid: A.draftProposalUuid, draftUuid: A.taskDraftUuid }, expect: nf },
    { route: 'DELETE /api/proposals/{uuid}/task-drafts/{draftUuid}', params: { uuid: B.draftProposalUuid, draftUuid: A.taskDraftUuid }, expect: 'own' },
    { route: 'POST /api/proposals/{uuid}/reports', params: { uuid: A.approvedProposalUuid }, body: { title: 'B report', content: 'B text', force: true }, expect: nf },

    { route: 'GET /api/projects/{uuid}/documents', params: { uuid: A.projectUuid }, expect: nf },
    { route: 'POST /api/projects/{uuid}/documents', params: { uuid: A.projectUuid }, body: { type: 'guide', title: 'B doc' }, expect: nf },
    { route: 'POST /api/projects/{uuid}/documents', params: { uuid: B.projectUuid }, body: { type: 'guide', title: 'B doc', proposalUuid: A.approvedProposalUuid }, expect: nf },
    { route: 'GET /api/documents/{uuid}', params: { uuid: A.documentUuid }, expect: nf },
    { route: 'PATCH /api/documents/{uuid}', params: { uuid: A.guideUuid }, body: { title: 'B renamed' }, expect: nf },
    { route: 'DELETE /api/documents/{uuid}', params: { uuid: A.guideUuid }, expect: nf },

    { route: 'GET /api/notifications', expect: 'own' },
    { route: 'GET /api/notifications', query: { projectUuid: A.projectUuid, unreadOnly: 'true' }, expect: 'own' },
    { route: 'GET /api/notifications/unread-count', expect: 'own' },
    { route: 'POST /api/notifications/read-all', body: { projectUuid: A.projectUuid }, expect: 'own' },
    { route: 'GET /api/notifications/preferences', expect: 'own' },
    { route: 'PUT /api/notifications/preferences', body: { mentioned: true }, expect: 'own' },
    { route: 'PATCH /api/notifications/{uuid}/read', params: { uuid: A.userNotificationUuid }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/read', params: { uuid: A.agentNotificationUuid }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/archive', params: { uuid: A.userNotificationUuid }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/archive', params: { uuid: A.agentNotificationUuid }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/unarchive', params: { uuid: A.userNotificationUuid }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/unarchive', params: { uuid: A.agentNotificationUuid }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/snooze', params: { uuid: A.userNotificationUuid }, body: { until: new Date(Date.now() + 3_600_000).toISOString() }, expect: nf },
    { route: 'PATCH /api/notifications/{uuid}/snooze', params: { uuid: A.agentNotificationUuid }, body: { until: new Date(Date.now() + 3_600_000).toISOString() }, expect: nf },
    { route: 'GET /api/events', query: { projectUuid: A.projectUuid }, expect: 'sse' },
    { route: 'GET /api/events/notifications', expect: 'sse' },

    { route: 'POST /api/mcp', expect: 'mcp' },
    ...['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'SEARCH'].map((m): RestCase => ({ route: `${m} /api/mcp`, expect: 'any' })),
  ];
}

function toolCases(A: Tenant, B: Tenant): ToolCase[] {
  const nf = 'not_found' as const;
  const crit = [{ description: 'B criterion' }];
  const question = { id: 'x1', text: 'B question?', category: 'functional', options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }] };
  const targets = [
    ['task', A.taskUuid],
    ['idea', A.ideaUuid],
    ['proposal', A.approvedProposalUuid],
    ['document', A.guideUuid],
  ] as const;
  const byProject = (tool: string, extra: Record<string, unknown> = {}): ToolCase => ({ tool, args: { projectUuid: A.projectUuid, ...extra }, expect: nf });
  return [
    { tool: 'svc_checkin', args: {}, expect: 'own', shows: B.admin.uuid },
    { tool: 'svc_get_my_assignments', args: {}, expect: 'own', shows: B.adminTaskUuid },
    { tool: 'svc_get_my_assignments', args: {}, headers: { 'X-Service-Project': `${A.projectUuid},${A.sideProjectUuid}` }, expect: 'own' },
    { tool: 'svc_get_my_assignments', args: {}, headers: { 'X-Service-Project-Group': A.groupUuid }, expect: 'own' },
    { tool: 'svc_get_my_assignments', args: {}, headers: { 'X-Service-Project': `${A.projectUuid},${B.projectUuid}` }, expect: 'own', shows: B.adminTaskUuid },
    { tool: 'svc_list_projects', args: {}, expect: 'own', shows: B.projectUuid },
    byProject('svc_get_project'),
    byProject('svc_get_ideas'),
    { tool: 'svc_get_idea', args: { ideaUuid: A.ideaUuid }, expect: nf },
    byProject('svc_get_available_ideas'),
    byProject('svc_get_documents'),
    { tool: 'svc_get_document', args: { documentUuid: A.documentUuid }, expect: nf },
    byProject('svc_get_proposals'),
    { tool: 'svc_get_proposal', args: { proposalUuid: A.approvedProposalUuid, section: 'full' }, expect: nf },
    { tool: 'svc_get_task', args: { taskUuid: A.taskUuid }, expect: nf },
    { tool: 'svc_get_task', args: { taskUuid: A.taskUuid.toUpperCase() }, expect: nf },
    ...['svc_list_tasks', 'svc_get_available_tasks', 'svc_get_unblocked_tasks'].flatMap((tool): ToolCase[] => [
      byProject(tool),
      { tool, args: { projectUuid: B.projectUuid, proposalUuids: [A.approvedProposalUuid] }, expect: 'own' },
    ]),
    byProject('svc_get_activity'),
    { tool: 'svc_get_activity', args: { projectUuid: B.projectUuid, targetType: 'task', targetUuid: A.taskUuid }, expect: 'own' },
    ...targets.map(([targetType, targetUuid]): ToolCase => ({ tool: 'svc_get_comments', args: { targetType, targetUuid }, expect: nf })),
    { tool: 'svc_get_elaboration', args: { ideaUuid: A.ideaUuid }, expect: nf },
    { tool: 'svc_get_project_groups', args: {}, expect: 'own', shows: B.groupUuid },
    { tool: 'svc_get_project_group', args: { groupUuid: A.groupUuid }, expect: nf },
    { tool: 'svc_get_group_dashboard', args: { groupUuid: A.groupUuid }, expect: nf },
    { tool: 'svc_search', args: { query: A.marker }, expect: 'own' },
    { tool: 'svc_search', args: { query: A.taskUuid }, expect: 'own' },
    { tool: 'svc_search', args: { query: 'task', scope: 'project', scopeUuid: A.projectUuid }, expect: nf },
    { tool: 'svc_search', args: { query: 'task', scope: 'group', scopeUuid: A.groupUuid }, expect: nf },
    { tool: 'svc_search_mentionables', args: { query: A.marker }, expect: 'own' },
    { tool: 'svc_search', args: { query: B.marker, entityTypes: ['task', 'idea', 'proposal', 'document', 'project', 'project_group'] }, expect: 'own', shows: B.taskUuid },
    ...targets.map(([targetType, targetUuid]): ToolCase => ({ tool: 'svc_add_comment', args: { targetType, targetUuid, content: 'B writes here' }, expect: nf })),
    { tool: 'svc_answer_elaboration', args: { ideaUuid: A.pendingIdeaUuid, answers: [{ questionId: 'p1', selectedOptionId: 'a' }] }, expect: nf },
    { tool: 'svc_answer_elaboration', args: { ideaUuid: B.pendingIdeaUuid, roundUuid: A.pendingRoundUuid, answers: [{ questionId: 'p1', selectedOptionId: 'a' }] }, expect: nf },
    { tool: 'svc_get_notifications', args: { status: 'all', projectUuid: A.projectUuid, autoMarkRead: false }, expect: 'own' },
    { tool: 'svc_mark_notification_read', args: { notificationUuid: A.agentNotificationUuid }, expect: nf },
    { tool: 'svc_mark_notification_read', args: { notificationUuid: A.userNotificationUuid }, expect: nf },
    { tool: 'svc_mark_notification_read', args: { all: true, projectUuid: A.projectUuid }, expect: 'own' },
    { tool: 'svc_snooze_notification', args: { notificationUuid: A.agentNotificationUuid, until: new Date(Date.now() + 3_600_000).toISOString() }, expect: nf },
    { tool: 'svc_snooze_notification', args: { notificationUuid: A.userNotificationUuid, until: new Date(Date.now() + 3_600_000).toISOString() }, expect: nf },
    { tool: 'svc_unarchive_notification', args: { notificationUuid: A.agentNotificationUuid }, expect: nf },
    { tool: 'svc_unarchive_notification', args: { notificationUuid: A.userNotificationUuid }, expect: nf },
    byProject('svc_create_tasks', { tasks: [{ title: 'B task', acceptanceCriteriaItems: crit }] }),
    { tool: 'svc_create_tasks', args: { projectUuid: B.projectUuid, proposalUuid: A.approvedProposalUuid, tasks: [{ title: 'B task', acceptanceCriteriaItems: crit }] }, expect: nf },
    { tool: 'svc_create_tasks', args: { projectUuid: B.projectUuid, tasks: [{ title: 'B task', acceptanceCriteriaItems: crit, dependsOnTaskUuids: [A.taskUuid] }] }, expect: nf },
    {
      tool: 'svc_create_tasks',
      args: {
        projectUuid: B.projectUuid,
        tasks: [
          { title: 'B batch first', acceptanceCriteriaItems: crit, draftUuid: A.taskDraftUuid },
          { title: 'B batch second', acceptanceCriteriaItems: crit, dependsOnDraftUuids: [A.taskDraftUuid] },
        ],
      },
      expect: 'own',
    },
    { tool: 'svc_update_task', args: { taskUuid: A.manualTaskUuid, title: 'B renamed' }, expect: nf },
    { tool: 'svc_update_task', args: { taskUuid: B.adminTaskUuid, title: 'B renamed', sessionUuid: A.adminSessionUuid }, expect: nf },
    { tool: 'svc_update_task', args: { taskUuid: B.manualTaskUuid, addDependsOn: [A.taskUuid] }, expect: nf },
    { tool: 'svc_update_task', args: { taskUuid: B.manualTaskUuid, removeDependsOn: [A.taskUuid] }, expect: 'own' },
    { tool: 'svc_create_session', args: { name: 'B session' }, expect: 'own' },
    { tool: 'svc_session_checkin_task', args: { sessionUuid: A.adminSessionUuid, taskUuid: B.adminTaskUuid }, expect: nf },
    { tool: 'svc_session_checkin_task', args: { sessionUuid: B.adminSessionUuid, taskUuid: A.taskUuid }, expect: nf },
    { tool: 'svc_session_checkout_task', args: { sessionUuid: A.devSessionUuid, taskUuid: B.taskUuid }, expect: nf },
    { tool: 'svc_session_checkout_task', args: { sessionUuid: B.adminSessionUuid, taskUuid: A.taskUuid }, expect: nf },
    { tool: 'svc_session_heartbeat', args: { sessionUuid: A.adminSessionUuid }, expect: nf },
    { tool: 'svc_close_session', args: { sessionUuid: A.adminSessionUuid }, expect: nf },
    { tool: 'svc_reopen_session', args: { sessionUuid: A.adminSessionUuid }, expect: nf },
    { tool: 'svc_list_sessions', args: {}, expect: 'own', shows: B.adminSessionUuid },
    { tool: 'svc_get_session', args: { sessionUuid: A.devSessionUuid }, expect: nf },
    { tool: 'svc_claim_task', args: { taskUuid: A.manualTaskUuid }, expect: nf },
    { tool: 'svc_release_task', args: { taskUuid: A.adminTaskUuid }, expect: nf },
    { tool: 'svc_submit_for_verify', args: { taskUuid: A.adminTaskUuid, summary: 'B done' }, expect: nf },
    { tool: 'svc_report_criteria_self_check', args: { taskUuid: A.adminTaskUuid, criteria: [{ uuid: A.adminCriterionUuid, devStatus: 'passed' }] }, expect: nf },
    { tool: 'svc_report_criteria_self_check', args: { taskUuid: B.adminTaskUuid, criteria: [{ uuid: A.adminCriterionUuid, devStatus: 'passed' }] }, expect: { status: 0, code: 'VALIDATION_ERROR' } },
    { tool: 'svc_report_work', args: { taskUuid: A.adminTaskUuid, report: 'B report' }, expect: nf },
    { tool: 'svc_report_work', args: { taskUuid: B.adminTaskUuid, report: 'B report', sessionUuid: A.adminSessionUuid }, expect: nf },
    { tool: 'svc_claim_idea', args: { ideaUuid: A.openIdeaUuid }, expect: nf },
    { tool: 'svc_release_idea', args: { ideaUuid: A.pendingIdeaUuid }, expect: nf },
    { tool: 'svc_move_idea', args: { ideaUuid: A.openIdeaUuid, targetProjectUuid: B.sideProjectUuid }, expect: nf },
    { tool: 'svc_move_idea', args: { ideaUuid: B.openIdeaUuid, targetProjectUuid: A.sideProjectUuid }, expect: nf },
    byProject('svc_pm_create_idea', { title: 'B idea' }),
    { tool: 'svc_pm_create_idea', args: { projectUuid: B.projectUuid, title: 'B idea', parentUuid: A.containerUuid }, expect: nf },
    { tool: 'svc_edit_idea', args: { ideaUuid: A.openIdeaUuid, title: 'B renamed' }, expect: nf },
    { tool: 'svc_edit_idea', args: { ideaUuid: B.openIdeaUuid, parentUuid: A.containerUuid }, expect: nf },
    { tool: 'svc_pm_start_elaboration', args: { ideaUuid: A.ideaUuid, depth: 'minimal', questions: [question] }, expect: nf },
    { tool: 'svc_pm_skip_elaboration', args: { ideaUuid: A.pendingIdeaUuid, reason: 'B says so' }, expect: nf },
    { tool: 'svc_pm_validate_elaboration', args: { ideaUuid: A.pendingIdeaUuid }, expect: nf },
    byProject('svc_pm_create_proposal', { title: 'B proposal', inputType: 'idea', inputUuids: [B.openIdeaUuid] }),
    { tool: 'svc_pm_create_proposal', args: { projectUuid: B.projectUuid, title: 'B proposal', inputType: 'idea', inputUuids: [A.ideaUuid] }, expect: nf },
    { tool: 'svc_pm_create_proposal', args: { projectUuid: B.projectUuid, title: 'B proposal', inputType: 'document', inputUuids: [A.guideUuid] }, expect: nf },
    { tool: 'svc_pm_validate_proposal', args: { proposalUuid: A.draftProposalUuid }, expect: nf },
    { tool: 'svc_pm_submit_proposal', args: { proposalUuid: A.draftProposalUuid }, expect: nf },
    { tool: 'svc_pm_add_document_draft', args: { proposalUuid: A.draftProposalUuid, type: 'prd', title: 'B doc', content: 'B text' }, expect: nf },
    { tool: 'svc_pm_add_task_draft', args: { proposalUuid: A.draftProposalUuid, title: 'B task', acceptanceCriteriaItems: crit }, expect: nf },
    {
      tool: 'svc_pm_add_task_draft',
      args: { proposalUuid: B.draftProposalUuid, title: 'B task', acceptanceCriteriaItems: crit, dependsOnDraftUuids: [A.taskDraftUuid] },
      expect: { status: 0, code: 'VALIDATION_ERROR' },
    },
    { tool: 'svc_pm_update_document_draft', args: { proposalUuid: A.draftProposalUuid, draftUuid: A.docDraftUuid, title: 'B' }, expect: nf },
    { tool: 'svc_pm_update_document_draft', args: { proposalUuid: B.draftProposalUuid, draftUuid: A.docDraftUuid, title: 'B' }, expect: nf },
    { tool: 'svc_pm_update_task_draft', args: { proposalUuid: A.draftProposalUuid, draftUuid: A.taskDraftUuid, title: 'B' }, expect: nf },
    { tool: 'svc_pm_update_task_draft', args: { proposalUuid: B.draftProposalUuid, draftUuid: A.taskDraftUuid, title: 'B' }, expect: nf },
    {
      tool: 'svc_pm_update_task_draft',
      args: { proposalUuid: B.draftProposalUuid, draftUuid: B.taskDraftUuid, dependsOnDraftUuids: [A.taskDraftUuid] },
      expect: { status: 0, code: 'VALIDATION_ERROR' },
    },
    { tool: 'svc_pm_remove_document_draft', args: { proposalUuid: A.draftProposalUuid, draftUuid: A.docDraftUuid }, expect: nf },
    { tool: 'svc_pm_remove_document_draft', args: { proposalUuid: B.draftProposalUuid, draftUuid: A.docDraftUuid }, expect: 'own' },
    { tool: 'svc_pm_remove_task_draft', args: { proposalUuid: A.draftProposalUuid, draftUuid: A.taskDraftUuid }, expect: nf },
    { tool: 'svc_pm_remove_task_draft', args: { proposalUuid: B.draftProposalUuid, draftUuid: A.taskDraftUuid }, expect: 'own' },
    { tool: 'svc_pm_reject_proposal', args: { proposalUuid: A.pendingProposalUuid, reviewNote: 'B rejects' }, expect: nf },
    { tool: 'svc_pm_revoke_proposal', args: { proposalUuid: A.approvedProposalUuid, reviewNote: 'B revokes' }, expect: nf },
    { tool: 'svc_pm_assign_task', args: { taskUuid: A.manualTaskUuid, agentUuid: B.dev.uuid }, expect: nf },
    { tool: 'svc_pm_assign_task', args: { taskUuid: B.manualTaskUuid, agentUuid: A.dev.uuid }, expect: nf },
    byProject('svc_pm_create_document', { type: 'guide', title: 'B doc' }),
    { tool: 'svc_pm_create_document', args: { projectUuid: B.projectUuid, type: 'guide', title: 'B doc', proposalUuid: A.approvedProposalUuid }, expect: nf },
    { tool: 'svc_pm_update_document', args: { documentUuid: A.guideUuid, title: 'B renamed' }, expect: nf },
    { tool: 'svc_create_report', args: { proposalUuid: A.approvedProposalUuid, title: 'B report', content: 'B text', force: true }, expect: nf },
    ...targets
      .filter(([t]) => t !== 'document')
      .map(([targetType, targetUuid]): ToolCase => ({
        tool: 'svc_add_reference',
        args: { targetType, targetUuid, type: 'docs', url: 'https://b.example/x', title: 'B ref' },
        expect: nf,
      })),
    { tool: 'svc_update_reference', args: { referenceUuid: A.referenceUuid, title: 'B was here' }, expect: nf },
    { tool: 'svc_remove_reference', args: { referenceUuid: A.referenceUuid }, expect: nf },
    { tool: 'svc_admin_approve_proposal', args: { proposalUuid: A.pendingProposalUuid }, expect: nf },
    { tool: 'svc_admin_close_proposal', args: { proposalUuid: A.pendingProposalUuid, reviewNote: 'B closes' }, expect: nf },
    { tool: 'svc_admin_verify_task', args: { taskUuid: A.taskUuid }, expect: nf },
    { tool: 'svc_admin_reopen_task', args: { taskUuid: A.taskUuid, force: true }, expect: nf },
    { tool: 'svc_admin_close_task', args: { taskUuid: A.taskUuid, reason: 'B closes' }, expect: nf },
    { tool: 'svc_mark_acceptance_criteria', args: { taskUuid: A.taskUuid, criteria: [{ uuid: A.criterionUuid, status: 'passed' }] }, expect: nf },
    { tool: 'svc_mark_acceptance_criteria', args: { taskUuid: B.adminTaskUuid, criteria: [{ uuid: A.adminCriterionUuid, status: 'passed' }] }, expect: { status: 0, code: 'VALIDATION_ERROR' } },
    { tool: 'svc_admin_delete_task', args: { taskUuid: A.manualTaskUuid }, expect: nf },
    { tool: 'svc_admin_delete_idea', args: { ideaUuid: A.openIdeaUuid }, expect: nf },
    { tool: 'svc_admin_delete_document', args: { documentUuid: A.guideUuid }, expect: nf },
    { tool: 'svc_admin_create_project', args: { name: 'B project' }, expect: 'own' },
    { tool: 'svc_admin_create_project', args: { name: 'B project', groupUuid: A.groupUuid }, expect: nf },
    { tool: 'svc_admin_create_project_group', args: { name: 'B group' }, expect: 'own' },
    { tool: 'svc_admin_update_project_group', args: { groupUuid: A.groupUuid, name: 'B renamed' }, expect: nf },
    { tool: 'svc_admin_delete_project_group', args: { groupUuid: A.groupUuid }, expect: nf },
    { tool: 'svc_admin_move_project_to_group', args: { projectUuid: A.sideProjectUuid, groupUuid: B.groupUuid }, expect: nf },
    { tool: 'svc_admin_move_project_to_group', args: { projectUuid: B.sideProjectUuid, groupUuid: A.groupUuid }, expect: nf },
  ];
}

/** What the cases missed of the required routes/tools and their uuid fields, and what they covered that is unknown. */
function coverageGaps(required: Map<string, Set<string>>, covered: Map<string, Set<string>>) {
  return {
    uncovered: [...required.keys()].filter((k) => !covered.has(k)),
    uncoveredFields: [...required].flatMap(([k, fields]) => [...fields].filter((f) => !covered.get(k)?.has(f)).map((f) => `${k} ${f}`)),
    unknown: [...covered.keys()].filter((k) => !required.has(k)),
  };
}

describe('tenant isolation matrix', () => {
  let app: World;
  let A: Tenant;
  let B: Tenant;
  let aSecrets: Secrets;
  let bSecrets: Secrets;
  let aStreams: TenantStreams;
  let bStreams: TenantStreams;
  /** B's change stream filtered on A's project. */
  let bFiltered: TenantStreams;
  let bKey: HttpClient;
  const extraClients: Client[] = [];
  const failures: string[] = [];

  /** Every answer B received, for the final sweep and for the report of failures. */
  const sweep = (what: string, text: string, echo: string): void => {
    const found = leaks(text, aSecrets, echo);
    if (found.length) failures.push(`${what}: leaks ${found.join(', ')} in ${text.slice(0, 400)}`);
  };

  beforeAll(async () => {
    app = await World.start();
    [A, B] = await Promise.all([seedTenant(app, 'Alpha'), seedTenant(app, 'Bravo')]);
    aSecrets = await secretsOf(app, A);
    bSecrets = await secretsOf(app, B);
    aStreams = await TenantStreams.open(app, A.http.cookie!);
    bStreams = await TenantStreams.open(app, B.http.cookie!);
    bFiltered = await TenantStreams.open(app, B.http.cookie!, `?projectUuid=${A.projectUuid}`);
    bKey = new HttpClient(app.url, { authorization: `Bearer ${B.admin.key}` });
  }, 60_000);

  beforeEach(() => {
    failures.splice(0);
  });

  afterAll(async () => {
    for (const s of [aStreams, bStreams, bFiltered]) s?.close();
    for (const c of extraClients) await c.close();
    for (const t of [A, B]) for (const ag of t ? [t.dev, t.pm, t.admin, t.spare] : []) await ag.client.close();
    await app?.close();
  });

  it('knows which company owns the rows of every table, and the two companies share no identifier', async () => {
    expect(await unclassifiedTables(app)).toEqual([]);
    expect([...aSecrets.uuids].filter((u) => bSecrets.uuids.has(u))).toEqual([]);
    expect(aSecrets.uuids.size).toBeGreaterThan(60);
    // The sweep itself: it finds A's uuids (any case) and marker, and lets a value pass only when B sent it itself.
    expect(leaks(`{"x":"${A.taskUuid.toUpperCase()}","t":"${A.marker.toUpperCase()} title"}`, aSecrets)).toEqual([A.taskUuid, A.marker]);
    expect(leaks(`{"error":"Task ${A.taskUuid} not found"}`, aSecrets, JSON.stringify({ taskUuid: A.taskUuid }))).toEqual([]);
    expect(leaks(JSON.stringify(await B.http.get(`/api/tasks/${B.taskUuid}`)), aSecrets)).toEqual([]);
    expect(leaks((await A.http.get(`/api/tasks/${A.taskUuid}`)).text, aSecrets).length).toBeGreaterThan(3);
  });

  it("A's mutations reach A's streams and none of B's", async () => {
    const bBefore = await syncStreams(app, bStreams, B.companyUuid, B.user.uuid);
    const aBefore = await syncStreams(app, aStreams, A.companyUuid, A.user.uuid);
    const rowsBefore = await companyChecksum(app, A.companyUuid);
    await mutate(A);
    // The checksum sees A's own writes (so the unchanged checks below mean something).
    expect(await companyChecksum(app, A.companyUuid)).not.toEqual(rowsBefore);
    const aAfter = await syncStreams(app, aStreams, A.companyUuid, A.user.uuid);
    expect(aAfter.changes.length).toBeGreaterThan(aBefore.changes.length);
    expect(aAfter.notifications.length).toBeGreaterThan(aBefore.notifications.length);
    expect(await syncStreams(app, bStreams, B.companyUuid, B.user.uuid)).toEqual(bBefore);
    aSecrets = await secretsOf(app, A);
  });

  it('every REST route refuses B (session and agent key) with 404 for A uuids in path, query and body, and leaks nothing', async () => {
    const docs = (await (await fetch(`${app.url}/api/docs.json`)).json()) as any;
    const resolve = (ref: string): any => docs.components.schemas[ref.split('/').pop()!];
    const required = new Map<string, Set<string>>();
    for (const [path, ops] of Object.entries<any>(docs.paths)) {
      if (path.startsWith('/api/docs')) continue;
      for (const [method, op] of Object.entries<any>(ops)) {
        const fields = new Set<string>();
        for (const p of op.parameters ?? []) if (p.in === 'path' || UUID_FIELD.test(p.name) || isUuidSchema(p.schema)) fields.add(`${p.in}.${p.name}`);
        const body = op.requestBody?.content?.['application/json']?.schema;
        for (const f of uuidFields(body, resolve)) fields.add(`body.${f}`);
        required.set(`${method.toUpperCase()} ${path}`, fields);
      }
    }
    expect(required.size).toBeGreaterThan(90);

    const cases = restCases(A, B);
    const covered = new Map<string, Set<string>>();
    const keyAccepted = new Set<string>();
    const before = await companyChecksum(app, A.companyUuid);

    for (const c of cases) {
      const seen = covered.get(c.route) ?? new Set<string>();
      covered.set(c.route, seen);
      for (const [k, v] of Object.entries(c.params ?? {})) if (aSecrets.uuids.has(v.toLowerCase())) seen.add(`path.${k}`);
      for (const f of fieldsCarrying(c.query ?? {}, aSecrets.uuids)) seen.add(`query.${f}`);
      for (const f of fieldsCarrying(c.body ?? {}, aSecrets.uuids)) seen.add(`body.${f}`);
      if (c.expect === 'sse' || c.expect === 'mcp') continue;

      const [method, template] = c.route.split(' ');
      const send = async (client: HttpClient, req: Pick<RestCase, 'params' | 'query' | 'body'>): Promise<HttpResult> => {
        const path = template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(req.params![n]));
        const qs = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
        return client.request(method, path + qs, { json: req.body });
      };
      const echo = JSON.stringify([c.params, c.query, c.body]);
      let session = B.http;
      if (c.fresh) {
        session = new HttpClient(app.url);
        await session.login(B.user.email, B.user.password);
      }
      for (const [who, client] of [
        ['session', session],
        ['key', bKey],
      ] as const) {
        const what = `${who} ${c.route} ${echo}`;
        const aBefore = method === 'GET' ? null : await companyChecksum(app, A.companyUuid);
        const res = await send(client, c);
        sweep(what, `${res.status} ${JSON.stringify([...res.headers])} ${res.text}`, echo);
        if (res.status >= 500) failures.push(`${what}: ${res.status} ${res.text}`);
        if (aBefore && JSON.stringify(await companyChecksum(app, A.companyUuid)) !== JSON.stringify(aBefore)) failures.push(`${what}: changed A's rows`);
        if (who === 'key') {
          if (res.status === 401 && c.route !== 'POST /api/auth/login') continue;
          if (c.expect !== 'any' && !c.route.startsWith('POST /api/auth/')) keyAccepted.add(c.route);
        }
        if (c.expect === 'own' && (res.status < 200 || res.status >= 300)) failures.push(`${what}: expected success, got ${res.status} ${res.text}`);
        if (c.shows && !res.text.includes(c.shows)) failures.push(`${what}: B's own ${c.shows} missing from ${res.text.slice(0, 300)}`);
        if (c.expect === 'not_found' || typeof c.expect === 'object') {
          const status = c.expect === 'not_found' ? 404 : c.expect.status;
          const code = c.expect === 'not_found' ? 'NOT_FOUND' : c.expect.code;
          if (res.status !== status || res.body?.success !== false || res.body?.error?.code !== code) {
            failures.push(`${what}: expected ${status} ${code}, got ${res.status} ${res.text.slice(0, 300)}`);
            continue;
          }
          // Existence is never revealed: a random uuid in A's place gets the very same answer.
          const twin = await send(client, withRandomUuids({ params: c.params, query: c.query, body: c.body }, aSecrets.uuids));
          if (twin.status !== res.status || normalise(twin.body?.error?.message) !== normalise(res.body.error.message) || twin.body?.error?.code !== code) {
            failures.push(`${what}: answer differs from a random uuid's: ${res.text} vs ${twin.text}`);
          }
        }
      }
    }

    expect(await companyChecksum(app, A.companyUuid)).toEqual(before);
    expect(coverageGaps(required, covered)).toEqual({ uncovered: [], uncoveredFields: [], unknown: [] });
    expect([...keyAccepted].sort()).toEqual([...ROUTES_TAKING_KEYS].sort());
    expect(failures).toEqual([]);
  }, 60_000);

  it("every MCP tool refuses B's admin agent with NOT_FOUND for A uuids in every uuid argument, and leaks nothing", async () => {
    const listed = await B.admin.client.listTools();
    expect(listed.tools).toHaveLength(84);
    const required = new Map(listed.tools.map((t) => [t.name, new Set(uuidFields(t.inputSchema, () => null))]));
    const cases = toolCases(A, B);
    const covered = new Map<string, Set<string>>();
    const before = await companyChecksum(app, A.companyUuid);

    for (const c of cases) {
      const seen = covered.get(c.tool) ?? new Set<string>();
      covered.set(c.tool, seen);
      for (const f of fieldsCarrying(c.args, aSecrets.uuids)) seen.add(f);
      let client = B.admin.client;
      if (c.headers) {
        client = await mcpClient(app.url, B.admin.key, c.headers);
        extraClients.push(client);
      }
      const echo = JSON.stringify([c.args, c.headers]);
      const what = `${c.tool} ${echo}`;
      const aBefore = await companyChecksum(app, A.companyUuid);
      let res;
      try {
        res = await rawCall(client, c.tool, c.args);
      } catch (err) {
        failures.push(`${what}: threw ${String(err)}`);
        continue;
      }
      sweep(what, res.text, echo);
      if (JSON.stringify(await companyChecksum(app, A.companyUuid)) !== JSON.stringify(aBefore)) failures.push(`${what}: changed A's rows`);
      if (res.data?.error?.code === 'INTERNAL_ERROR') failures.push(`${what}: ${res.text}`);
      if (c.expect === 'own' && res.isError) failures.push(`${what}: expected success, got ${res.text}`);
      if (c.shows && !res.text.includes(c.shows)) failures.push(`${what}: B's own ${c.shows} missing from ${res.text.slice(0, 300)}`);
      if (c.expect === 'not_found' || typeof c.expect === 'object') {
        const code = c.expect === 'not_found' ? 'NOT_FOUND' : c.expect.code;
        if (!res.isError || res.data?.error?.code !== code) {
          failures.push(`${what}: expected ${code}, got ${res.text.slice(0, 300)}`);
          continue;
        }
        const twin = await rawCall(client, c.tool, withRandomUuids(c.args, aSecrets.uuids));
        if (!twin.isError || twin.data?.error?.code !== code || normalise(twin.data.error.message) !== normalise(res.data.error.message)) {
          failures.push(`${what}: answer differs from a random uuid's: ${res.text} vs ${twin.text}`);
        }
      }
    }

    expect(await companyChecksum(app, A.companyUuid)).toEqual(before);
    expect(coverageGaps(required, covered)).toEqual({ uncovered: [], uncoveredFields: [], unknown: [] });
    expect(failures).toEqual([]);
  }, 60_000);

  it("B's mutations (even mentioning A's people) reach none of A's streams or inboxes; both mutating at once stay apart", async () => {
    const aBefore = await syncStreams(app, aStreams, A.companyUuid, A.user.uuid);
    const before = await companyChecksum(app, A.companyUuid);
    const bBefore = await syncStreams(app, bStreams, B.companyUuid, B.user.uuid);
    // B mentions A's user and agent by uuid: mentions resolve only inside B's company.
    const mention = `@[Someone](user:${A.user.uuid}) @[Bot](agent:${A.pm.uuid}) @[Me](user:${B.user.uuid})`;
    const byRest = await B.http.post('/api/comments', { targetType: 'task', targetUuid: B.taskUuid, content: `B says ${mention}` });
    expect(byRest.status).toBe(201);
    const byTool = await rawCall(B.pm.client, 'svc_add_comment', { targetType: 'idea', targetUuid: B.ideaUuid, content: `B pm says ${mention}` });
    expect(byTool.isError).toBe(false);
    // …and in idea content and task descriptions (the other mention sources).
    const idea = await B.http.post(`/api/projects/${B.projectUuid}/ideas`, { title: 'B mentions', content: mention });
    expect(idea.status).toBe(201);
    expect((await rawCall(B.pm.client, 'svc_edit_idea', { ideaUuid: B.openIdeaUuid, content: `edited ${mention}` })).isError).toBe(false);
    const tasks = await rawCall(B.pm.client, 'svc_create_tasks', {
      projectUuid: B.projectUuid,
      tasks: [{ title: 'B mentions', description: mention, acceptanceCriteriaItems: [{ description: 'works' }] }],
    });
    expect(tasks.isError).toBe(false);
    expect((await B.http.patch(`/api/tasks/${B.manualTaskUuid}`, { description: `patched ${mention}` })).status).toBe(200);
    await mutate(B);
    const bAfter = await syncStreams(app, bStreams, B.companyUuid, B.user.uuid);
    expect(bAfter.changes.length).toBeGreaterThan(bBefore.changes.length);
    expect(bAfter.notifications.length).toBeGreaterThan(bBefore.notifications.length);
    expect(await syncStreams(app, aStreams, A.companyUuid, A.user.uuid)).toEqual(aBefore);
    expect(await companyChecksum(app, A.companyUuid)).toEqual(before);

    // Both at once.
    await Promise.all([mutate(A), mutate(B)]);
    const aFinal = await syncStreams(app, aStreams, A.companyUuid, A.user.uuid);
    const bFinal = await syncStreams(app, bStreams, B.companyUuid, B.user.uuid);
    expect(aFinal.changes.length).toBeGreaterThan(aBefore.changes.length);
    expect(bFinal.changes.length).toBeGreaterThan(bAfter.changes.length);

    // The sweep over everything each side ever received on its streams.
    aSecrets = await secretsOf(app, A);
    bSecrets = await secretsOf(app, B);
    for (const f of bFinal.changes) expect(JSON.parse(f).companyUuid).toBe(B.companyUuid);
    for (const f of aFinal.changes) expect(JSON.parse(f).companyUuid).toBe(A.companyUuid);
    const bFrames = [...bFinal.changes, ...bFinal.notifications];
    const aFrames = [...aFinal.changes, ...aFinal.notifications];
    expect(bFrames.flatMap((f) => leaks(f, aSecrets).map((l) => `${l} in ${f}`))).toEqual([]);
    expect(aFrames.flatMap((f) => leaks(f, bSecrets).map((l) => `${l} in ${f}`))).toEqual([]);
    expect(bFrames.some((f) => f.includes(B.marker))).toBe(true);

    // B's stream filtered on A's project: A's events never pass, only a B-company marker naming that project.
    const filtered = await syncStreams(app, bFiltered, B.companyUuid, B.user.uuid, A.projectUuid);
    expect(filtered.changes).toEqual([]);
  }, 60_000);
});

/** A burst of ordinary work by one company: an idea, a comment mentioning its user, progress on its task. */
async function mutate(t: Tenant): Promise<void> {
  const idea = await t.http.post(`/api/projects/${t.projectUuid}/ideas`, { title: `${t.marker} later idea` });
  expect(idea.status).toBe(201);
  const comment = await rawCall(t.pm.client, 'svc_add_comment', { targetType: 'task', targetUuid: t.taskUuid, content: `${t.marker} ping @[Owner](user:${t.user.uuid})` });
  expect(comment.isError).toBe(false);
  const report = await rawCall(t.dev.client, 'svc_report_work', { taskUuid: t.taskUuid, report: `${t.marker} more progress` });
  expect(report.isError).toBe(false);
}
