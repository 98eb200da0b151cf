import fc from 'fast-check';
import { DomainFactory } from '../../factories/domain.factory.js';
import type { SeededUser } from '../../factories/identity.factory.js';
import { NotificationFactory } from '../../factories/notification.factory.js';
import { userActor, World } from '../../utils/world.js';
import { requestFrom } from '../../utils/http-from.js';
import { rpc } from '../../utils/mcp-client.js';
import { DbChecksum } from './db-checksum.js';
import { MALFORMED_UUIDS } from './hostile.js';

/** The record kinds a path or argument can name, keyed by the path segment that precedes the parameter. */
export const KIND_SQL: Record<string, string> = {
  projects: `SELECT uuid FROM project WHERE company_uuid = $1`,
  'project-groups': `SELECT uuid FROM project_group WHERE company_uuid = $1`,
  ideas: `SELECT uuid FROM idea WHERE company_uuid = $1`,
  proposals: `SELECT uuid FROM proposal WHERE company_uuid = $1`,
  tasks: `SELECT uuid FROM task WHERE company_uuid = $1`,
  documents: `SELECT uuid FROM document WHERE company_uuid = $1`,
  agents: `SELECT uuid FROM agent WHERE company_uuid = $1`,
  keys: `SELECT uuid FROM agent_api_key WHERE company_uuid = $1`,
  references: `SELECT uuid FROM reference WHERE company_uuid = $1`,
  notifications: `SELECT uuid FROM notification WHERE company_uuid = $1`,
  comments: `SELECT uuid FROM comment WHERE company_uuid = $1`,
  sessions: `SELECT uuid FROM agent_session WHERE company_uuid = $1`,
  users: `SELECT uuid FROM app_user WHERE company_uuid = $1`,
  rounds: `SELECT uuid FROM elaboration_round WHERE company_uuid = $1`,
  criteria: `SELECT c.uuid FROM acceptance_criterion c JOIN task t ON t.uuid = c.task_uuid WHERE t.company_uuid = $1`,
  'document-drafts': `SELECT d->>'uuid' AS uuid FROM proposal p, jsonb_array_elements(p.document_drafts) d WHERE p.company_uuid = $1`,
  'task-drafts': `SELECT d->>'uuid' AS uuid FROM proposal p, jsonb_array_elements(p.task_drafts) d WHERE p.company_uuid = $1`,
};

const FIELD_KINDS: Array<[RegExp, string]> = [
  [/^(task|dependsOnTask|blockerTask)/i, 'tasks'],
  [/^(idea|parent|inputIdea)/i, 'ideas'],
  [/^(projectGroup|group)/i, 'project-groups'],
  [/^(project|targetProject|scope)/i, 'projects'],
  [/^proposal/i, 'proposals'],
  [/^document(?!Draft)/i, 'documents'],
  [/^session/i, 'sessions'],
  [/^notification/i, 'notifications'],
  [/^reference/i, 'references'],
  [/^(agent|assignee)/i, 'agents'],
  [/^(criteria|criterion)/i, 'criteria'],
  [/^round/i, 'rounds'],
  [/^comment/i, 'comments'],
  [/^(draft|dependsOnDraft)/i, 'task-drafts'],
  [/^key/i, 'keys'],
];

/** The record kind a field name points at, if it says (`dependsOnTaskUuids` → tasks). */
export function kindOfField(field: string | undefined): string | undefined {
  if (!field) return undefined;
  return FIELD_KINDS.find(([re]) => re.test(field))?.[1];
}

export interface Company {
  uuid: string;
  user: SeededUser;
  /** `svc_session=…` of the user (kept valid by `ensureSession`). */
  cookie: string;
  /** Raw key of an admin_agent of the company (owner: the user). */
  adminKey: string;
  adminAgentUuid: string;
  /** kind → uuids of the company's records of that kind. */
  pool: Record<string, string[]>;
}

/**
 * The real service (`World.start`: its own database, random port) with two companies A and B seeded through the service's
 * own REST API, tool endpoint and services: per company a user, an admin agent with a key, a group, projects, ideas
 * (open and elaborated), a draft proposal with a document and a task draft, tasks with criteria and a dependency,
 * a document, a comment, a reference, an agent session and notifications.
 */
/** Where the session keeper signs in from (any 127.0.0.0/8 address reaches the loopback interface). */
const SESSION_KEEPER_ADDRESS = '127.0.0.9';

export class FuzzWorld {
  readonly checksum: DbChecksum;
  a!: Company;
  b!: Company;

  private constructor(readonly app: World) {
    this.checksum = new DbChecksum(app.db.dataSource);
  }

  get url(): string {
    return this.app.url;
  }

  static async start(): Promise<FuzzWorld> {
    const w = new FuzzWorld(await World.start({ env: { LOG_LEVEL: 'warn' } }));
    w.a = await w.seedCompany('A');
    w.b = await w.seedCompany('B');
    await w.refreshPools();
    return w;
  }

  private async seedCompany(label: string): Promise<Company> {
    const db = this.app.ds;
    const ids = this.app.ids;
    const company = await ids.company(`Fuzz company ${label}`);
    const user = await ids.user(company.uuid, { name: `Fuzz user ${label}` });
    await ids.user(company.uuid, { name: `Colleague ${label}` });
    const { agent, key } = await ids.agent(company.uuid, user.uuid, { preset: 'admin_agent', name: `Admin ${label}` });
    await ids.agent(company.uuid, user.uuid, { preset: 'developer_agent', name: `Dev ${label}` });

    const http = await this.app.login(user);
    const ok = async (method: string, path: string, json?: unknown): Promise<any> => {
      const res = await http.request(method, path, { json });
      if (res.status >= 300) throw new Error(`seeding ${method} ${path} failed: ${res.status} ${res.text}`);
      return res.body.data;
    };
    const group = await ok('POST', '/api/project-groups', { name: `Group ${label}` });
    const project = await ok('POST', '/api/projects', { name: `Project ${label}`, groupUuid: group.uuid });
    await ok('POST', '/api/projects', { name: `Empty project ${label}` });
    const actor = userActor(user);
    const domain = new DomainFactory(this.app, { app: true });
    const elaborated = await domain.idea(actor, project.uuid, { state: 'elaborated' });
    await domain.idea(actor, project.uuid, { state: 'pending_answers' });
    await ok('POST', `/api/projects/${project.uuid}/ideas`, { title: `Open idea ${label}`, content: 'Plain content' });
    const proposal = await ok('POST', `/api/projects/${project.uuid}/proposals`, { title: `Proposal ${label}`, inputType: 'idea', inputUuids: [elaborated.uuid] });
    await ok('POST', `/api/proposals/${proposal.uuid}/document-drafts`, { type: 'prd', title: 'PRD draft', content: 'Text' });
    await ok('POST', `/api/proposals/${proposal.uuid}/task-drafts`, { title: 'Task draft', acceptanceCriteriaItems: [{ description: 'works' }] });
    const created = await ok('POST', `/api/projects/${project.uuid}/tasks`, {
      tasks: [
        { title: `Task one ${label}`, draftUuid: 'one', acceptanceCriteriaItems: [{ description: 'works' }, { description: 'nice', required: false }] },
        { title: `Task two ${label}`, dependsOnDraftUuids: ['one'], acceptanceCriteriaItems: [{ description: 'tested' }] },
        { title: `Task three ${label}`, priority: 'high', acceptanceCriteriaItems: [{ description: 'done' }] },
      ],
    });
    const taskUuid: string = created.tasks[0].uuid;
    await ok('POST', `/api/tasks/${created.tasks[2].uuid}/claim`);
    await ok('POST', `/api/projects/${project.uuid}/documents`, { type: 'prd', title: `Document ${label}`, content: 'Body' });
    await ok('POST', '/api/comments', { targetType: 'task', targetUuid: taskUuid, content: `A comment @[${user.name}](user:${user.uuid})` });
    await ok('POST', '/api/references', { targetType: 'task', targetUuid: taskUuid, type: 'docs', url: 'https://example.com/doc', title: 'Doc link' });
    const session = await rpc(this.app.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'svc_create_session', arguments: { name: `Session ${label}` } } }, { authorization: `Bearer ${key}` });
    if (session.json?.result?.isError !== undefined && session.json.result.isError) throw new Error(`seeding session failed: ${session.text}`);
    await new NotificationFactory(db).many({ type: 'user', uuid: user.uuid, companyUuid: company.uuid }, 3);
    await new NotificationFactory(db).insert({ type: 'agent', uuid: agent.uuid, companyUuid: company.uuid });
    return { uuid: company.uuid, user, cookie: http.cookie!, adminKey: key, adminAgentUuid: agent.uuid, pool: {} };
  }

  /** Re-reads every company's record uuids (records come and go as fuzzed requests succeed). */
  async refreshPools(): Promise<void> {
    for (const c of [this.a, this.b]) {
      for (const [kind, sql] of Object.entries(KIND_SQL)) {
        const rows = (await this.app.db.dataSource.query(sql, [c.uuid])) as Array<{ uuid: string }>;
        c.pool[kind] = rows.map((r) => r.uuid);
      }
    }
  }

  /** A live session cookie for A's user: a fuzzed logout may have ended the previous one. */
  async ensureSession(c: Company = this.a): Promise<void> {
    const me = await fetch(`${this.app.url}/api/auth/me`, { headers: { cookie: c.cookie } });
    await me.text();
    if (me.status === 200) return;
    // From an address of its own: the fuzzed logins' failures count against the fuzzer's 127.0.0.1 (login throttling
    // by client address, docs/deploy.md "Abuse limits"), and a long run must not lock the session keeper out.
    const res = await requestFrom(SESSION_KEEPER_ADDRESS, `${this.app.url}/api/auth/login`, { method: 'POST', json: { email: c.user.email, password: c.user.password } });
    const cookie = [res.headers['set-cookie'] ?? []].flat().map((v) => v.split(';')[0]).find((v) => v.startsWith('svc_session='));
    if (res.status !== 200 || !cookie) throw new Error(`session keeper: login answered ${res.status} ${res.text.slice(0, 200)}`);
    c.cookie = cookie;
  }

  /**
   * Uuids for a field or path parameter of `kind` (unknown kind: any record): mostly A's records of that kind, then
   * B's (another company: must be NOT_FOUND), random uuids, records of other kinds and malformed ones. Drawn by index
   * from the pools as they are when the property starts, so a seed replays the same choices.
   */
  uuidArb(kind?: string): fc.Arbitrary<string> {
    const ofKind = (c: Company): string[] => (kind && c.pool[kind]?.length ? c.pool[kind] : Object.values(c.pool).flat());
    const any = (c: Company): string[] => Object.values(c.pool).flat();
    const pick = (list: string[]): fc.Arbitrary<string> => (list.length ? fc.constantFrom(...list) : fc.uuid());
    return fc.oneof(
      { weight: 12, arbitrary: pick(ofKind(this.a)) },
      { weight: 3, arbitrary: pick(ofKind(this.b)) },
      { weight: 1, arbitrary: pick(any(this.a)) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: pick(ofKind(this.a)).map((u) => u.toUpperCase()) },
      { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_UUIDS) },
    );
  }

  /** The logged cause of an INTERNAL_ERROR answer (the service logs its errorId with the error). */
  causeOf(errorId: unknown): string {
    const line = this.app.logs.find((l) => l.errorId === errorId);
    if (!line) return '(no log line for this errorId)';
    const err = line.err as { message?: string; stack?: string } | undefined;
    return `logged cause: ${err?.message ?? JSON.stringify(line).slice(0, 500)}\n${String(err?.stack ?? '').split('\n').slice(1, 6).join('\n')}`;
  }

  /** uuidArb for an argument or body field, by its name (`taskUuid`, `dependsOnTaskUuids`, `criteria`, …). */
  uuidsForField(field: string | undefined): fc.Arbitrary<string> {
    return this.uuidArb(kindOfField(field));
  }

  async close(): Promise<void> {
    await this.app.close();
  }
}
