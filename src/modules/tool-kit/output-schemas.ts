/**
 * Output schemas of the read-only tools (tools.md §1.1): each publishes one, and returns the same object as
 * `structuredContent`. They stay shallow (§1.5): the top-level keys with their types, and one level inside lists (each
 * item an object with its keys' types). The record shapes of §5.9 are stated once here.
 *
 * Clients validate `structuredContent` against these schemas and refuse a mismatch, so they must never be stricter
 * than what the tools return: a field that can be null is `[type, "null"]`; objects stay open (no
 * `additionalProperties: false`); the optional markers `truncated` and `warnings` are never required.
 */
export type JsonSchema = Record<string, unknown>;

type Kind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
/** A key's type (`'string|null'` when it may be null), or a list built with `listOf`. */
type Field = Kind | `${Kind}|null` | JsonSchema;
type Shape = Record<string, Field>;

const typeOf = (f: Kind | `${Kind}|null`): JsonSchema => (f.endsWith('|null') ? { type: [f.slice(0, -5), 'null'] } : { type: f });

/** Inside a list item only the type of a key is stated (one level). */
const shallow = (f: Field): JsonSchema => (typeof f === 'string' ? typeOf(f) : { type: f.type });

const propertiesOf = (shape: Shape, field: (f: Field) => JsonSchema): Record<string, JsonSchema> =>
  Object.fromEntries(Object.entries(shape).map(([k, f]) => [k, field(f)]));

/** A list of objects of `shape`: the items' keys with their types only (no `required`, nothing deeper). */
export function listOf(shape: Shape): JsonSchema {
  return { type: 'array', items: { type: 'object', properties: propertiesOf(shape, shallow) } };
}

/**
 * A tool's output schema: an object of `shape`, every key required but `optional`. The optional markers of tools.md
 * §1.1 (`truncated`, `warnings`, `hints`) go in `optional` where a tool can add them; objects stay open anyway.
 */
export function outputOf(shape: Shape, optional: readonly string[] = []): JsonSchema {
  const properties = propertiesOf(shape, (f) => (typeof f === 'string' ? typeOf(f) : f));
  return { type: 'object', properties, required: Object.keys(shape).filter((k) => !optional.includes(k)) };
}

const PAGE: Shape = { page: 'integer', pageSize: 'integer', total: 'integer', truncated: 'boolean' };

/** A list result `{<items>, page, pageSize, total}` (tools.md §1.2), `truncated: true` when rows were cut. */
const pageOf = (items: string, shape: Shape, extra: Shape = {}): JsonSchema => outputOf({ [items]: listOf(shape), ...PAGE, ...extra }, ['truncated']);

// --- record shapes (tools.md §5.9) -----------------------------------------------------------------------------
// Person-valued keys are `object|null`: the record says who, and a person can be unresolvable.

const REFERENCE: Shape = {
  uuid: 'string',
  targetType: 'string',
  targetUuid: 'string',
  type: 'string',
  url: 'string',
  title: 'string',
  notes: 'string|null',
  createdBy: 'object|null',
  createdAt: 'string',
  updatedAt: 'string',
};

const ACTIVITY: Shape = {
  uuid: 'string',
  projectUuid: 'string',
  targetType: 'string',
  targetUuid: 'string',
  actor: 'object|null',
  action: 'string',
  value: 'object|null',
  sessionUuid: 'string|null',
  sessionName: 'string|null',
  createdAt: 'string',
};

const COMMENT: Shape = { uuid: 'string', targetType: 'string', targetUuid: 'string', content: 'string', author: 'object|null', createdAt: 'string' };

const PROJECT_SUMMARY: Shape = {
  uuid: 'string',
  name: 'string',
  description: 'string',
  groupUuid: 'string|null',
  counts: 'object',
  createdAt: 'string',
  updatedAt: 'string',
};

const GROUP_SUMMARY: Shape = { uuid: 'string', name: 'string', description: 'string', projectCount: 'integer', createdAt: 'string', updatedAt: 'string' };

const IDEA_SUMMARY: Shape = {
  uuid: 'string',
  projectUuid: 'string',
  title: 'string',
  status: 'string',
  derivedStatus: 'string',
  isContainer: 'boolean',
  parentUuid: 'string|null',
  assignee: 'object|null',
  elaborationStatus: 'string|null',
  childCount: 'integer',
  createdBy: 'object|null',
  createdAt: 'string',
  updatedAt: 'string',
};

const PROPOSAL_SUMMARY: Shape = {
  uuid: 'string',
  projectUuid: 'string',
  title: 'string',
  status: 'string',
  inputType: 'string',
  inputUuids: 'array',
  documentDraftCount: 'integer',
  taskDraftCount: 'integer',
  createdBy: 'object|null',
  reviewedBy: 'object|null',
  createdAt: 'string',
  updatedAt: 'string',
};

const TASK_SUMMARY: Shape = {
  uuid: 'string',
  projectUuid: 'string',
  proposalUuid: 'string|null',
  title: 'string',
  status: 'string',
  priority: 'string',
  storyPoints: 'number|null',
  assignee: 'object|null',
  acceptance: 'object',
  createdAt: 'string',
  updatedAt: 'string',
};

const DOCUMENT_SUMMARY: Shape = {
  uuid: 'string',
  projectUuid: 'string',
  type: 'string',
  title: 'string',
  version: 'integer',
  proposalUuid: 'string|null',
  createdBy: 'object|null',
  createdAt: 'string',
  updatedAt: 'string',
};

const SESSION: Shape = {
  uuid: 'string',
  agentUuid: 'string',
  name: 'string',
  description: 'string',
  status: 'string',
  lastActiveAt: 'string',
  closedAt: 'string|null',
  checkins: listOf({ taskUuid: 'string', taskTitle: 'string', checkinAt: 'string' }),
  createdAt: 'string',
  updatedAt: 'string',
};

const TASK_LINK: Shape = { uuid: 'string', title: 'string', status: 'string' };

const TASK_RECORD: Shape = {
  ...TASK_SUMMARY,
  description: 'string',
  createdBy: 'object|null',
  acceptanceCriteriaItems: listOf({
    uuid: 'string',
    description: 'string',
    required: 'boolean',
    sortOrder: 'integer',
    devStatus: 'string',
    devEvidence: 'string|null',
    devMarkedBy: 'object|null',
    devMarkedAt: 'string|null',
    status: 'string',
    evidence: 'string|null',
    markedBy: 'object|null',
    markedAt: 'string|null',
  }),
  acceptanceStatus: 'string',
  acceptanceSummary: 'object',
  dependsOn: listOf(TASK_LINK),
  dependedBy: listOf(TASK_LINK),
  activeSessions: listOf({ sessionUuid: 'string', sessionName: 'string', agentUuid: 'string', checkinAt: 'string' }),
  commentCount: 'integer',
  references: listOf(REFERENCE),
};

const IDEA_RECORD: Shape = {
  ...IDEA_SUMMARY,
  content: 'string',
  elaborationDepth: 'string|null',
  parent: 'object|null',
  children: listOf({ uuid: 'string', title: 'string', status: 'string', derivedStatus: 'string' }),
  proposals: listOf({ uuid: 'string', title: 'string', status: 'string' }),
  reports: listOf({ uuid: 'string', title: 'string', proposalUuid: 'string', createdAt: 'string' }),
  references: listOf(REFERENCE),
};

/** The section keys: `basic` has the two indexes, `documents` / `tasks` / `full` the full drafts. */
const PROPOSAL_SECTIONS = ['documentDraftIndex', 'taskDraftIndex', 'documentDrafts', 'taskDrafts'];

const PROPOSAL_RECORD: Shape = {
  ...PROPOSAL_SUMMARY,
  description: 'string',
  submittedAt: 'string|null',
  reviewNote: 'string|null',
  reviewedAt: 'string|null',
  references: listOf(REFERENCE),
  section: 'string',
  documentDraftIndex: listOf({ uuid: 'string', type: 'string', title: 'string', contentLength: 'integer' }),
  taskDraftIndex: listOf({
    uuid: 'string',
    title: 'string',
    priority: 'string|null',
    storyPoints: 'number|null',
    acceptanceCriteriaCount: 'integer',
    dependsOnDraftUuids: 'array',
  }),
  documentDrafts: listOf({ uuid: 'string', type: 'string', title: 'string', content: 'string' }),
  taskDrafts: listOf({
    uuid: 'string',
    title: 'string',
    description: 'string',
    priority: 'string|null',
    storyPoints: 'number|null',
    acceptanceCriteriaItems: 'array',
    dependsOnDraftUuids: 'array',
  }),
};

const ELABORATION_STATE: Shape = {
  ideaUuid: 'string',
  ideaStatus: 'string',
  depth: 'string|null',
  status: 'string|null',
  rounds: listOf({
    uuid: 'string',
    roundNumber: 'integer',
    status: 'string',
    depth: 'string',
    isAppended: 'boolean',
    createdBy: 'object|null',
    answeredAt: 'string|null',
    createdAt: 'string',
    questions: 'array',
  }),
  summary: 'object',
};

/** The output schema of each read-only tool, by tool; the tools name theirs in `@Tool({ output })`. */
export const OUTPUT = {
  myAssignments: outputOf({ ideaTracker: 'object', taskTracker: 'object', truncated: 'boolean', warnings: 'array' }, ['truncated', 'warnings']),
  projectList: pageOf('projects', PROJECT_SUMMARY),
  project: outputOf({ ...PROJECT_SUMMARY, group: 'object|null', taskStatusCounts: 'object' }),
  ideaList: pageOf('ideas', IDEA_SUMMARY),
  idea: outputOf(IDEA_RECORD),
  documentList: pageOf('documents', DOCUMENT_SUMMARY),
  document: outputOf({ ...DOCUMENT_SUMMARY, content: 'string' }),
  proposalList: pageOf('proposals', PROPOSAL_SUMMARY),
  proposal: outputOf(PROPOSAL_RECORD, PROPOSAL_SECTIONS),
  proposalValidation: outputOf({ valid: 'boolean', issues: listOf({ id: 'string', level: 'string', message: 'string', field: 'string' }) }),
  task: outputOf(TASK_RECORD),
  taskList: pageOf('tasks', TASK_SUMMARY),
  activityList: pageOf('activities', ACTIVITY),
  commentList: pageOf('comments', COMMENT),
  elaboration: outputOf(ELABORATION_STATE),
  groupList: pageOf('groups', GROUP_SUMMARY, { ungroupedCount: 'integer' }),
  group: outputOf({ ...GROUP_SUMMARY, projects: listOf({ uuid: 'string', name: 'string', description: 'string' }) }),
  groupDashboard: outputOf({
    group: 'object',
    stats: 'object',
    projects: listOf({ uuid: 'string', name: 'string', taskCount: 'integer', completionRate: 'number' }),
    recentActivity: listOf(ACTIVITY),
  }),
  search: pageOf(
    'results',
    { entityType: 'string', uuid: 'string', title: 'string', snippet: 'string', status: 'string|null', projectUuid: 'string|null', projectName: 'string|null', updatedAt: 'string' },
    { counts: 'object' },
  ),
  mentionables: pageOf('mentionables', { type: 'string', uuid: 'string', name: 'string', email: 'string|null' }),
  sessionList: pageOf('sessions', SESSION),
  session: outputOf(SESSION),
} as const satisfies Record<string, JsonSchema>;
