import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { commitChange, commitFrame } from './stream-frames.js';
import type { SeededUser } from '../factories/identity.factory.js';
import type { HttpClient } from './http.js';
import { rawCall } from './mcp-client.js';
import { openEventSource, type TestEventSource } from './sse.js';
import type { World } from './world.js';

export interface TenantAgent {
  uuid: string;
  name: string;
  key: string;
  keyUuid: string;
  client: Client;
}

/**
 * One company with a bit of everything, built through the real REST routes and tools: a group with a project and a
 * side project; ideas in several states (a container, an elaborated one, one with a round awaiting answers, an open
 * one, two resolved by skip); an approved, a pending and a draft proposal (with document and task drafts); tasks
 * materialised by approval (with acceptance criteria and a dependency), one claimed and in progress under a session,
 * a manual one depending on it, one held by the admin agent; documents, comments with mentions, a reference,
 * sessions, notifications of the user and of an agent. Every name and text carries `marker`.
 *
 * The tenant-isolation matrix's seeder (`seedTenant(world, label)`, on a started `World`): unlike the world's own
 * seeders it writes through the public REST routes and tools on purpose, so that every record company B is aimed at
 * was made the way a client makes it.
 */
export interface Tenant {
  label: string;
  marker: string;
  companyUuid: string;
  user: SeededUser;
  colleague: SeededUser;
  http: HttpClient;
  dev: TenantAgent;
  pm: TenantAgent;
  admin: TenantAgent;
  /** An agent nobody uses (archive / key targets). */
  spare: TenantAgent;
  groupUuid: string;
  projectUuid: string;
  sideProjectUuid: string;
  containerUuid: string;
  /** Elaborated, input of the approved proposal. */
  ideaUuid: string;
  /** Claimed by pm, one round awaiting answers. */
  pendingIdeaUuid: string;
  pendingRoundUuid: string;
  firstRoundUuid: string;
  /** Open, unclaimed. */
  openIdeaUuid: string;
  approvedProposalUuid: string;
  pendingProposalUuid: string;
  draftProposalUuid: string;
  docDraftUuid: string;
  taskDraftUuid: string;
  /** Materialised, claimed by dev and in progress, checked in to dev's session. */
  taskUuid: string;
  criterionUuid: string;
  /** Materialised, depends on taskUuid. */
  dependentTaskUuid: string;
  /** Created over REST, open, depends on taskUuid. */
  manualTaskUuid: string;
  /** Claimed by the admin agent, in progress. */
  adminTaskUuid: string;
  adminCriterionUuid: string;
  documentUuid: string;
  guideUuid: string;
  commentUuid: string;
  referenceUuid: string;
  devSessionUuid: string;
  adminSessionUuid: string;
  userNotificationUuid: string;
  agentNotificationUuid: string;
}

const LONG = 'This document explains the change in enough detail for a reviewer to judge it properly. ';

async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await rawCall(client, name, args);
  if (res.isError) throw new Error(`seeding: ${name} failed: ${res.text}`);
  return res.data;
}

async function rest(http: HttpClient, method: string, path: string, json?: unknown): Promise<any> {
  const res = await http.request(method, path, { json });
  if (res.status >= 300) throw new Error(`seeding: ${method} ${path} → ${res.status} ${res.text}`);
  return res.body.data;
}

export async function seedTenant(app: World, label: string): Promise<Tenant> {
  const marker = `${label.toLowerCase()}${randomBytes(4).toString('hex')}`;
  const M = marker;
  const company = await app.company(`${M} Company`);
  const user = await app.user(company.uuid, { name: `${M} Owner`, email: `${M}-owner@example.test` });
  const colleague = await app.user(company.uuid, { name: `${M} Colleague`, email: `${M}-colleague@example.test` });
  const http = await app.login(user);

  const agent = async (preset: string, role: string): Promise<TenantAgent> => {
    const rec = await rest(http, 'POST', '/api/agents', { name: `${M} ${role}`, preset });
    const k = await rest(http, 'POST', `/api/agents/${rec.uuid}/keys`, { name: `${M} key` });
    return { uuid: rec.uuid, name: rec.name, key: k.key, keyUuid: k.apiKey.uuid, client: await app.mcp(k.key) };
  };
  const dev = await agent('developer_agent', 'Dev');
  const pm = await agent('pm_agent', 'PM');
  const admin = await agent('admin_agent', 'Admin');
  const spare = await agent('developer_agent', 'Spare');

  const group = await ok(admin.client, 'svc_admin_create_project_group', { name: `${M} Group`, description: `${M} group text` });
  const project = await ok(admin.client, 'svc_admin_create_project', { name: `${M} Project`, description: `${M} project text`, groupUuid: group.uuid });
  const side = await ok(admin.client, 'svc_admin_create_project', { name: `${M} Side project` });
  const P = project.uuid as string;

  const container = await rest(http, 'POST', `/api/projects/${P}/ideas`, { title: `${M} Container idea`, content: `${M} theme`, isContainer: true });
  const newIdea = (title: string, extra: Record<string, unknown> = {}) =>
    ok(pm.client, 'svc_pm_create_idea', { projectUuid: P, title: `${M} ${title}`, content: `${M} ${title} content, @[Owner](user:${user.uuid})`, ...extra });
  const question = (id: string) => ({
    id,
    text: `${M} question ${id}?`,
    category: 'functional',
    options: [
      { id: 'a', label: `${M} option a` },
      { id: 'b', label: `${M} option b` },
    ],
  });

  // Elaborated idea: claim, one round, answered by the user over REST, validated by the admin agent.
  const idea = await newIdea('Idea one', { parentUuid: container.uuid, references: [{ type: 'docs', url: `https://${M}.example/idea`, title: `${M} idea ref` }] });
  await ok(pm.client, 'svc_claim_idea', { ideaUuid: idea.uuid });
  const started = await ok(pm.client, 'svc_pm_start_elaboration', { ideaUuid: idea.uuid, depth: 'standard', questions: [question('q1')] });
  await rest(http, 'POST', `/api/ideas/${idea.uuid}/elaboration/answers`, { answers: [{ questionId: 'q1', selectedOptionId: 'a' }] });
  await ok(admin.client, 'svc_pm_validate_elaboration', { ideaUuid: idea.uuid });
  const firstRoundUuid = (started.rounds ?? []).at(-1)?.uuid ?? (await roundUuids(app, idea.uuid))[0];

  // An idea with a round awaiting answers.
  const pending = await newIdea('Pending idea');
  await ok(pm.client, 'svc_claim_idea', { ideaUuid: pending.uuid });
  await ok(pm.client, 'svc_pm_start_elaboration', { ideaUuid: pending.uuid, depth: 'minimal', questions: [question('p1')] });
  const pendingRoundUuid = (await roundUuids(app, pending.uuid))[0];

  const openIdea = await newIdea('Open idea');
  const skipped = async (title: string) => {
    const i = await newIdea(title);
    await ok(pm.client, 'svc_claim_idea', { ideaUuid: i.uuid });
    await ok(pm.client, 'svc_pm_skip_elaboration', { ideaUuid: i.uuid, reason: `${M} agreed` });
    return i.uuid as string;
  };
  const idea4 = await skipped('Idea for pending proposal');
  const idea5 = await skipped('Idea for draft proposal');

  const proposal = async (inputUuid: string, title: string) => {
    const p = await ok(pm.client, 'svc_pm_create_proposal', {
      projectUuid: P,
      title: `${M} ${title}`,
      description: `${M} ${title} description`,
      inputType: 'idea',
      inputUuids: [inputUuid],
      references: [{ type: 'repo', url: `https://${M}.example/repo`, title: `${M} repo` }],
    });
    const doc = await ok(pm.client, 'svc_pm_add_document_draft', { proposalUuid: p.uuid, type: 'prd', title: `${M} ${title} PRD`, content: `${M} ${LONG.repeat(2)}` });
    const ta = await ok(pm.client, 'svc_pm_add_task_draft', {
      proposalUuid: p.uuid,
      title: `${M} ${title} task A`,
      description: `${M} task A text`,
      priority: 'high',
      acceptanceCriteriaItems: [{ description: `${M} A works` }, { description: `${M} A tested` }],
    });
    await ok(pm.client, 'svc_pm_add_task_draft', {
      proposalUuid: p.uuid,
      title: `${M} ${title} task B`,
      acceptanceCriteriaItems: [{ description: `${M} B works` }],
      dependsOnDraftUuids: [ta.draftUuid],
    });
    return { uuid: p.uuid as string, docDraft: doc.draftUuid as string, taskDraft: ta.draftUuid as string };
  };
  const approved = await proposal(idea.uuid, 'Approved proposal');
  await ok(pm.client, 'svc_pm_submit_proposal', { proposalUuid: approved.uuid });
  const approval = await ok(admin.client, 'svc_admin_approve_proposal', { proposalUuid: approved.uuid, reviewNote: `${M} fine` });
  const pendingP = await proposal(idea4, 'Pending proposal');
  await ok(pm.client, 'svc_pm_submit_proposal', { proposalUuid: pendingP.uuid });
  const draftP = await proposal(idea5, 'Draft proposal');

  const taskA = approval.materializedTasks.find((t: { title: string }) => t.title.endsWith('task A')).taskUuid as string;
  const taskB = approval.materializedTasks.find((t: { title: string }) => t.title.endsWith('task B')).taskUuid as string;
  const documentUuid = approval.materializedDocuments[0].documentUuid as string;

  // Dev claims task A, works on it in a session and self-checks a criterion.
  await ok(dev.client, 'svc_claim_task', { taskUuid: taskA });
  const devSession = await ok(dev.client, 'svc_create_session', { name: `${M} dev session`, description: `${M} working` });
  await ok(dev.client, 'svc_session_checkin_task', { sessionUuid: devSession.uuid, taskUuid: taskA });
  const inProgress = await ok(dev.client, 'svc_update_task', { taskUuid: taskA, status: 'in_progress', sessionUuid: devSession.uuid });
  const criterionUuid = inProgress.acceptanceCriteriaItems[0].uuid as string;
  await ok(dev.client, 'svc_report_criteria_self_check', { taskUuid: taskA, criteria: [{ uuid: criterionUuid, devStatus: 'passed', devEvidence: `${M} evidence` }] });
  await ok(dev.client, 'svc_report_work', { taskUuid: taskA, report: `${M} progress report`, sessionUuid: devSession.uuid });

  // Manual tasks over REST: one depending on task A, one the admin agent holds in progress.
  const created = await rest(http, 'POST', `/api/projects/${P}/tasks`, {
    tasks: [
      { title: `${M} Manual task`, description: `${M} manual @[Dev](agent:${dev.uuid})`, acceptanceCriteriaItems: [{ description: `${M} manual works` }], dependsOnTaskUuids: [taskA] },
      { title: `${M} Admin task`, acceptanceCriteriaItems: [{ description: `${M} admin works` }] },
    ],
  });
  const manualTaskUuid = created.tasks[0].uuid as string;
  const adminTaskUuid = created.tasks[1].uuid as string;
  await ok(admin.client, 'svc_claim_task', { taskUuid: adminTaskUuid });
  const adminSession = await ok(admin.client, 'svc_create_session', { name: `${M} admin session` });
  const adminTask = await ok(admin.client, 'svc_update_task', { taskUuid: adminTaskUuid, status: 'in_progress' });
  const adminCriterionUuid = adminTask.acceptanceCriteriaItems[0].uuid as string;

  const guide = await ok(pm.client, 'svc_pm_create_document', { projectUuid: P, type: 'guide', title: `${M} Guide`, content: `${M} guide text` });
  for (const [targetType, targetUuid] of [
    ['task', taskA],
    ['idea', idea.uuid],
    ['proposal', approved.uuid],
    ['document', guide.uuid],
  ] as const) {
    await ok(pm.client, 'svc_add_comment', { targetType, targetUuid, content: `${M} comment on ${targetType} @[Owner](user:${user.uuid})` });
  }
  const comment = await rest(http, 'POST', '/api/comments', { targetType: 'task', targetUuid: taskA, content: `${M} user comment @[PM](agent:${pm.uuid})` });
  const reference = await ok(pm.client, 'svc_add_reference', { targetType: 'task', targetUuid: taskA, type: 'docs', url: `https://${M}.example/ref`, title: `${M} Reference`, notes: `${M} notes` });

  const userNotes = await rest(http, 'GET', '/api/notifications?limit=1');
  const agentNotes = await ok(pm.client, 'svc_get_notifications', { status: 'all', autoMarkRead: false, pageSize: 1 });
  if (!userNotes.notifications.length || !agentNotes.notifications.length) throw new Error('seeding: expected notifications');

  return {
    label,
    marker,
    companyUuid: company.uuid,
    user,
    colleague,
    http,
    dev,
    pm,
    admin,
    spare,
    groupUuid: group.uuid,
    projectUuid: P,
    sideProjectUuid: side.uuid,
    containerUuid: container.uuid,
    ideaUuid: idea.uuid,
    pendingIdeaUuid: pending.uuid,
    pendingRoundUuid,
    firstRoundUuid,
    openIdeaUuid: openIdea.uuid,
    approvedProposalUuid: approved.uuid,
    pendingProposalUuid: pendingP.uuid,
    draftProposalUuid: draftP.uuid,
    docDraftUuid: draftP.docDraft,
    taskDraftUuid: draftP.taskDraft,
    taskUuid: taskA,
    criterionUuid,
    dependentTaskUuid: taskB,
    manualTaskUuid,
    adminTaskUuid,
    adminCriterionUuid,
    documentUuid,
    guideUuid: guide.uuid,
    commentUuid: comment.uuid,
    referenceUuid: reference.uuid,
    devSessionUuid: devSession.uuid,
    adminSessionUuid: adminSession.uuid,
    userNotificationUuid: userNotes.notifications[0].uuid,
    agentNotificationUuid: agentNotes.notifications[0].uuid,
  };
}

async function roundUuids(app: World, ideaUuid: string): Promise<string[]> {
  const rows: Array<{ uuid: string }> = await app.db.dataSource.query(`SELECT uuid FROM elaboration_round WHERE idea_uuid = $1 ORDER BY round_number DESC`, [ideaUuid]);
  return rows.map((r) => r.uuid);
}

/** Stream markers' entity uuids start with this (recognisable in the stream log). */
const MARKER_PREFIX = '00000000-0000-4000-8000-';

/**
 * Which rows of each table belong to a company. Every table of the schema must be listed here (the world checks it),
 * so a new table cannot silently escape the checksum and the identifier sweep.
 */
const OWNED_ROWS: Record<string, string> = {
  company: `uuid = $1`,
  acceptance_criterion: `task_uuid IN (SELECT uuid FROM task WHERE company_uuid = $1)`,
  task_dependency: `task_uuid IN (SELECT uuid FROM task WHERE company_uuid = $1) OR depends_on_uuid IN (SELECT uuid FROM task WHERE company_uuid = $1)`,
  elaboration_question: `round_uuid IN (SELECT uuid FROM elaboration_round WHERE company_uuid = $1)`,
  session_task_checkin: `session_uuid IN (SELECT uuid FROM agent_session WHERE company_uuid = $1)`,
  notification_inbox: `recipient_uuid IN (SELECT uuid FROM app_user WHERE company_uuid = $1 UNION SELECT uuid FROM agent WHERE company_uuid = $1)`,
};
/** Stream positions and log: keyed by the company (change stream) or by one of its users or agents (notifications). */
const STREAM_KEYS = `(stream = 'c' AND key = $1::uuid::text) OR (stream = 'n' AND split_part(key, ':', 2) IN
  (SELECT uuid::text FROM app_user WHERE company_uuid = $1 UNION SELECT uuid::text FROM agent WHERE company_uuid = $1))`;
OWNED_ROWS.stream_head = STREAM_KEYS;
// The stream markers of `syncStreams` are logged too (they are real committed frames); they are not the company's data.
OWNED_ROWS.stream_log = `(${STREAM_KEYS}) AND payload NOT LIKE '%"entityUuid":"${MARKER_PREFIX}%' AND payload NOT LIKE '%"marker":%'`;
// The authorization server's records of a company's grants (tokens, codes, the grant itself).
OWNED_ROWS.oauth_payload = `grant_id IN (SELECT grant_id FROM oauth_grant WHERE company_uuid = $1)`;
/** Counters that markers move as well: classified (and swept for identifiers) but not checksummed. */
const NOT_CHECKSUMMED = new Set(['stream_head']);
const TENANT_COLUMN_TABLES = [
  'activity',
  'agent',
  'agent_api_key',
  'agent_session',
  'app_user',
  'comment',
  'document',
  'elaboration_round',
  'idea',
  'mention',
  'notification',
  'notification_preference',
  'oauth_grant',
  'project',
  'project_group',
  'proposal',
  'reference',
  'task',
  'user_session',
];
for (const t of TENANT_COLUMN_TABLES) OWNED_ROWS[t] = `company_uuid = $1`;
/**
 * The service's own keys (OAuth signing and cookie keys) belong to no company, nor do the abuse counters (keyed by
 * an email's SHA-256 and a client address, read by no route).
 */
const NOT_TENANT_DATA = new Set(['migrations', 'stream_epoch', 'oauth_key', 'login_failure', 'login_success', 'throttle_hit']);

/** Fails when the schema has a table the ownership map does not know. */
export async function unclassifiedTables(app: World): Promise<string[]> {
  const rows: Array<{ table_name: string }> = await app.db.dataSource.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  return rows.map((r) => r.table_name).filter((t) => !(t in OWNED_ROWS) && !NOT_TENANT_DATA.has(t));
}

/** One md5 per table over a company's rows (full row text, sorted). */
export async function companyChecksum(app: World, companyUuid: string): Promise<Record<string, string>> {
  const parts = Object.entries(OWNED_ROWS).filter(([t]) => !NOT_CHECKSUMMED.has(t)).map(
    ([t, where]) => `SELECT '${t}' AS t, coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') AS h FROM "${t}" x WHERE ${where}`,
  );
  const rows: Array<{ t: string; h: string }> = await app.db.dataSource.query(parts.join(' UNION ALL '), [companyUuid]);
  return Object.fromEntries(rows.map((r) => [r.t, r.h]));
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export function uuidsIn(text: string): string[] {
  return (text.match(UUID_RE) ?? []).map((u) => u.toLowerCase());
}

/** Every uuid found in a company's rows (keys, hashes and timestamps aside: just uuid-shaped values). */
export async function companyUuids(app: World, companyUuid: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const [t, where] of Object.entries(OWNED_ROWS)) {
    const rows: Array<{ j: string }> = await app.db.dataSource.query(`SELECT row_to_json(x)::text AS j FROM "${t}" x WHERE ${where}`, [companyUuid]);
    for (const r of rows) for (const u of uuidsIn(r.j)) out.add(u);
  }
  return out;
}

/** What must never reach the other tenant: every uuid of its rows, its marker, its raw keys. */
export interface Secrets {
  uuids: Set<string>;
  strings: string[];
}

export async function secretsOf(app: World, t: Tenant): Promise<Secrets> {
  return {
    uuids: await companyUuids(app, t.companyUuid),
    strings: [t.marker, t.dev.key, t.pm.key, t.admin.key, t.spare.key, t.user.password, (t.http.cookie ?? '').replace('svc_session=', '')].filter((s) => s.length > 0),
  };
}

/** The identifying values of `secrets` found in `text`, ignoring those the caller itself sent (`echo`). */
export function leaks(text: string, secrets: Secrets, echo = ''): string[] {
  const found = new Set<string>();
  const echoed = new Set(uuidsIn(echo));
  for (const u of uuidsIn(text)) if (secrets.uuids.has(u) && !echoed.has(u)) found.add(u);
  const lower = text.toLowerCase();
  const echoLower = echo.toLowerCase();
  for (const s of secrets.strings) if (lower.includes(s.toLowerCase()) && !echoLower.includes(s.toLowerCase())) found.add(s);
  return [...found];
}

/** A browser's two streams for one user, recording every frame. */
export class TenantStreams {
  private constructor(
    readonly changes: TestEventSource,
    readonly notifications: TestEventSource,
  ) {}

  static async open(app: World, cookie: string, query = ''): Promise<TenantStreams> {
    const changes = openEventSource(`${app.url}/api/events${query}`, cookie);
    const notifications = openEventSource(`${app.url}/api/events/notifications`, cookie);
    await Promise.all([changes.opened, notifications.opened]);
    return new TenantStreams(changes, notifications);
  }

  close(): void {
    this.changes.close();
    this.notifications.close();
  }
}

/** The ids of every marker published so far (stripped from what the stream helpers return). */
const MARKER_IDS = new Set<string>();

/**
 * Publishes a marker frame on both of a user's streams and waits until it arrives: every frame published before it
 * has then been delivered (one process, in-order bus). Returns the frames received so far, markers left out.
 */
export async function syncStreams(
  app: World,
  streams: TenantStreams,
  companyUuid: string,
  userUuid: string,
  projectUuid: string = randomUUID(),
): Promise<{ changes: string[]; notifications: string[] }> {
  const id = `${MARKER_PREFIX}${randomUUID().slice(-12)}`;
  MARKER_IDS.add(id);
  await commitChange(app, { companyUuid, projectUuid, entityType: 'task', entityUuid: id, action: 'updated' });
  await commitFrame(app, { recipientType: 'user', recipientUuid: userUuid, frame: { type: 'count_update', unreadCount: 0, marker: id } as never });
  await waitForText(streams.changes, id);
  await waitForText(streams.notifications, id);
  const strip = (list: string[]): string[] => list.filter((m) => ![...MARKER_IDS].some((x) => m.includes(x)));
  return { changes: strip(streams.changes.messages), notifications: strip(streams.notifications.messages) };
}

async function waitForText(source: TestEventSource, text: string): Promise<void> {
  let n = 1;
  for (;;) {
    const all = await source.waitFor(n);
    if (all.some((m) => m.includes(text))) return;
    n = all.length + 1;
  }
}
