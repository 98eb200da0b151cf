/**
 * The v2 bare baseline for bench/mcp.ts: MCP TypeScript SDK v2 (`@modelcontextprotocol/server`) on node:http with no
 * framework, serving the SAME catalogue as ours — the product's own `tools/list` answer for a preset (fetched from the
 * running product at bench start) plus an `echo` tool that returns its text (no auth, no database). When given the
 * product's database it also answers two hand-written same-work tools, called by name though not listed:
 * `get_task` (the bearer key with its agent's permissions in ONE prepared statement, then the task with criteria,
 * dependencies, sessions, comment count and references in ONE prepared statement, as text + structuredContent) and
 * `update_task` (svc_update_task's statements for a title change in one transaction, prepared) — the floor a read
 * and a write tool can reach on this SDK, this database and this machine.
 *
 * Per request, like ours: the body is read and JSON-parsed once and handed to the SDK as `parsedBody`; a headers-only
 * web `Request` is built; `isLegacyRequest` routes it — 2025-era requests to a fresh low-level `Server` over a
 * stateless `WebStandardStreamableHTTPServerTransport` answering plain JSON, 2026-07-28 requests to
 * `createMcpHandler(factory, { legacy: 'reject' })` whose factory builds a fresh low-level `Server`. Each server's two
 * handlers read lists prepared at boot; one `AjvJsonSchemaValidator` is shared by all servers.
 *
 * Run as a child process (bench/mcp.ts forks it): it waits for `{catalogues: {<path>: Tool[]}, databaseUrl?}` over IPC, serves
 * `POST /<path>` with that catalogue (+ echo), and answers `{url}`. `{profile: 'start'}` / `{profile: 'stop', file}`
 * record a V8 CPU profile of this process (bench/lib/profiler.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { createMcpHandler, isLegacyRequest, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { PRESET_PERMISSIONS, type Preset } from '../src/shared/auth/permissions.js';
import { installProfilerIpc } from './lib/profiler.js';

export const ECHO_TOOL = {
  name: 'echo',
  title: 'Echo',
  description: 'Returns its text.',
  inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  annotations: { title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

type Tool = { name: string; [k: string]: unknown };

/*
 * The same-work tools: what svc_get_task and svc_update_task must do, written by hand against the product's (scratch)
 * database with `pg`: no framework, no ORM, no pipeline. Every statement is a named prepared statement.
 */

/** A person (`{type, uuid, name}`) of a `<col>_type` / `<col>_uuid` pair, or null (the product's '(unknown)' too). */
const person = (type: string, uuid: string): string => `CASE WHEN ${uuid} IS NULL OR ${type} IS NULL THEN NULL
  WHEN ${type} = 'user' THEN json_build_object('type', ${type}, 'uuid', ${uuid}, 'name', coalesce((SELECT u.name FROM app_user u WHERE u.uuid = ${uuid}), '(unknown)'))
  ELSE json_build_object('type', ${type}, 'uuid', ${uuid}, 'name', coalesce((SELECT a.name FROM agent a WHERE a.uuid = ${uuid}), '(unknown)')) END`;
const iso = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The bearer key (by its SHA-256) with its agent's permissions and company, in one statement. */
export const BARE_KEY = {
  name: 'bare_key',
  text: `SELECT a.uuid AS agent_uuid, a.preset, a.permissions, a.company_uuid FROM agent_api_key k JOIN agent a ON a.uuid = k.agent_uuid
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now()) AND a.archived_at IS NULL`,
};

/** The task's answer as JSON (pg parses it; serialized once for the text): fields, criteria, dependencies, sessions, comment count, references; one statement. */
export const BARE_TASK = {
  name: 'bare_task',
  text: `WITH t AS (SELECT * FROM task WHERE uuid = $1 AND company_uuid = $2),
  cr AS (SELECT c.* FROM acceptance_criterion c JOIN t ON c.task_uuid = t.uuid),
  s AS (SELECT count(*) AS total, count(*) FILTER (WHERE required) AS required,
               count(*) FILTER (WHERE status = 'passed') AS passed, count(*) FILTER (WHERE status = 'failed') AS failed,
               count(*) FILTER (WHERE status NOT IN ('passed', 'failed')) AS pending,
               count(*) FILTER (WHERE required AND status = 'passed') AS rpassed, count(*) FILTER (WHERE required AND status = 'failed') AS rfailed,
               count(*) FILTER (WHERE required AND status NOT IN ('passed', 'failed')) AS rpending FROM cr)
SELECT json_build_object(
  'uuid', t.uuid, 'projectUuid', t.project_uuid, 'proposalUuid', t.proposal_uuid, 'title', t.title, 'status', t.status,
  'priority', t.priority, 'storyPoints', t.story_points,
  'assignee', CASE WHEN t.assignee_uuid IS NULL OR t.assignee_type IS NULL THEN NULL ELSE json_build_object('type', t.assignee_type,
      'uuid', t.assignee_uuid, 'name', coalesce(CASE WHEN t.assignee_type = 'user' THEN (SELECT u.name FROM app_user u WHERE u.uuid = t.assignee_uuid)
      ELSE (SELECT a.name FROM agent a WHERE a.uuid = t.assignee_uuid) END, '(unknown)'),
      'assignedAt', ${iso('t.assigned_at')}, 'assignedBy', ${person('t.assigned_by_type', 't.assigned_by_uuid')}) END,
  'acceptance', json_build_object('passed', s.passed, 'total', s.total),
  'createdAt', ${iso('t.created_at')}, 'updatedAt', ${iso('t.updated_at')}, 'description', t.description,
  'createdBy', ${person('t.created_by_type', 't.created_by_uuid')},
  'acceptanceCriteriaItems', (SELECT coalesce(json_agg(json_build_object('uuid', c.uuid, 'description', c.description, 'required', c.required,
       'sortOrder', c.sort_order, 'devStatus', c.dev_status, 'devEvidence', c.dev_evidence, 'devMarkedBy', ${person('c.dev_marked_by_type', 'c.dev_marked_by_uuid')},
       'devMarkedAt', ${iso('c.dev_marked_at')}, 'status', c.status, 'evidence', c.evidence, 'markedBy', ${person('c.marked_by_type', 'c.marked_by_uuid')},
       'markedAt', ${iso('c.marked_at')}) ORDER BY c.sort_order, c.uuid), '[]') FROM cr c),
  'acceptanceStatus', CASE WHEN s.rfailed > 0 THEN 'failed' WHEN s.required > 0 AND s.rpassed = s.required THEN 'passed'
       WHEN s.passed + s.failed > 0 THEN 'in_progress' ELSE 'not_started' END,
  'acceptanceSummary', json_build_object('total', s.total, 'required', s.required, 'passed', s.passed, 'failed', s.failed, 'pending', s.pending,
       'requiredPassed', s.rpassed, 'requiredFailed', s.rfailed, 'requiredPending', s.rpending),
  'dependsOn', (SELECT coalesce(json_agg(json_build_object('uuid', o.uuid, 'title', o.title, 'status', o.status) ORDER BY d.created_at, o.uuid), '[]')
       FROM task_dependency d JOIN task o ON o.uuid = d.depends_on_uuid WHERE d.task_uuid = t.uuid),
  'dependedBy', (SELECT coalesce(json_agg(json_build_object('uuid', o.uuid, 'title', o.title, 'status', o.status) ORDER BY d.created_at, o.uuid), '[]')
       FROM task_dependency d JOIN task o ON o.uuid = d.task_uuid WHERE d.depends_on_uuid = t.uuid),
  'activeSessions', (SELECT coalesce(json_agg(json_build_object('sessionUuid', c.session_uuid, 'sessionName', x.name, 'agentUuid', x.agent_uuid,
       'checkinAt', ${iso('c.checkin_at')}) ORDER BY c.checkin_at, c.session_uuid), '[]')
       FROM session_task_checkin c JOIN agent_session x ON x.uuid = c.session_uuid WHERE c.task_uuid = t.uuid AND c.checkout_at IS NULL),
  'commentCount', (SELECT count(*) FROM comment m WHERE m.company_uuid = t.company_uuid AND m.target_type = 'task' AND m.target_uuid = t.uuid),
  'references', (SELECT coalesce(json_agg(json_build_object('uuid', r.uuid, 'targetType', r.target_type, 'targetUuid', r.target_uuid, 'type', r.type,
       'url', r.url, 'title', r.title, 'notes', r.notes, 'createdBy', ${person('r.created_by_type', 'r.created_by_uuid')},
       'createdAt', ${iso('r.created_at')}, 'updatedAt', ${iso('r.updated_at')}) ORDER BY r.created_at, r.uuid), '[]')
       FROM reference r WHERE r.company_uuid = t.company_uuid AND r.target_type = 'task' AND r.target_uuid = t.uuid)
) AS record FROM t, s`,
};

/*
 * svc_update_task changing a title runs, in one transaction: the task row locked, the UPDATE, the activity row
 * (collaboration's before-commit writer), the change event's stream position and log row (the stream log's append,
 * the transaction's last statement), and the record read back. The same statements, by hand.
 */
const BARE_LOCK = { name: 'bare_lock', text: `SELECT uuid, project_uuid, title FROM task WHERE uuid = $1 AND company_uuid = $2 FOR UPDATE` };
const BARE_UPDATE = { name: 'bare_update', text: `UPDATE task SET title = $1, updated_at = CURRENT_TIMESTAMP WHERE uuid = $2` };
const BARE_ACTIVITY = {
  name: 'bare_activity',
  text: `INSERT INTO activity (uuid, company_uuid, project_uuid, target_type, target_uuid, actor_type, actor_uuid, action, value, session_uuid, session_name, created_at)
         VALUES ($1, $2, $3, 'task', $4, 'agent', $5, 'edited', '{"fields":["title"]}', NULL, NULL, now())`,
};
const BARE_APPEND = {
  name: 'bare_append',
  text: `WITH head AS (INSERT INTO stream_head AS h (stream, key, position) VALUES ('c', $1, 1)
                     ON CONFLICT (stream, key) DO UPDATE SET position = h.position + 1 RETURNING position)
         INSERT INTO stream_log (stream, key, position, project_uuid, payload) SELECT 'c', $1, position, $2, $3 FROM head RETURNING position::text`,
};

interface SameWork {
  pool: pg.Pool;
}

type CallAnswer = { content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

const refused = (text: string): CallAnswer => ({ content: [{ type: 'text', text }], isError: true });

/** The bearer key's agent with its permissions (re-read on every request), or null. */
async function caller(db: SameWork, authorization: string | null): Promise<{ agentUuid: string; permissions: ReadonlySet<string>; companyUuid: string } | null> {
  const m = /^Bearer\s+(agk_\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return null;
  const { rows } = await db.pool.query<{ agent_uuid: string; preset: Preset; permissions: string[] | null; company_uuid: string }>({
    ...BARE_KEY,
    values: [createHash('sha256').update(m[1]).digest('hex')],
  });
  const row = rows[0];
  return row ? { agentUuid: row.agent_uuid, permissions: new Set([...PRESET_PERMISSIONS[row.preset], ...(row.permissions ?? [])]), companyUuid: row.company_uuid } : null;
}

async function getTask(db: SameWork, authorization: string | null, args: { taskUuid?: unknown }): Promise<CallAnswer> {
  const who = await caller(db, authorization);
  if (!who) return refused('unauthorized');
  const { rows } = await db.pool.query<{ record: Record<string, unknown> }>({ ...BARE_TASK, values: [String(args.taskUuid), who.companyUuid] });
  if (!rows[0]) return refused('not found');
  const record = rows[0].record;
  return { content: [{ type: 'text', text: JSON.stringify(record) }], structuredContent: record };
}

async function updateTask(db: SameWork, authorization: string | null, args: { taskUuid?: unknown; title?: unknown }): Promise<CallAnswer> {
  const who = await caller(db, authorization);
  if (!who) return refused('unauthorized');
  if (!who.permissions.has('task:write')) return refused('forbidden');
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ uuid: string; project_uuid: string; title: string }>({ ...BARE_LOCK, values: [String(args.taskUuid), who.companyUuid] });
    const task = rows[0];
    if (!task) {
      await client.query('ROLLBACK');
      return refused('not found');
    }
    const title = String(args.title).trim();
    if (title !== task.title) {
      await client.query({ ...BARE_UPDATE, values: [title, task.uuid] });
      await client.query({ ...BARE_ACTIVITY, values: [randomUUID(), who.companyUuid, task.project_uuid, task.uuid, who.agentUuid] });
      const frame = JSON.stringify({ companyUuid: who.companyUuid, projectUuid: task.project_uuid, entityType: 'task', entityUuid: task.uuid, action: 'updated' });
      await client.query({ ...BARE_APPEND, values: [who.companyUuid, task.project_uuid, frame] });
    }
    const record = await client.query<{ record: Record<string, unknown> }>({ ...BARE_TASK, values: [task.uuid, who.companyUuid] });
    await client.query('COMMIT');
    return { content: [{ type: 'text', text: JSON.stringify(record.rows[0].record) }] };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const SHARED_VALIDATOR = new AjvJsonSchemaValidator();
const INFO = { name: 'bare', version: '1.0.0' };

/** The same-work tools' names: `get_task` and `update_task`. */
export const SAME_WORK_TOOLS = { read: 'get_task', write: 'update_task' } as const;

function createServer(tools: Tool[], db: SameWork | null, authorization: string | null): Server {
  const server = new Server(INFO, { capabilities: { tools: {} }, jsonSchemaValidator: SHARED_VALIDATOR });
  server.setRequestHandler('tools/list', () => ({ tools: tools as never }));
  server.setRequestHandler('tools/call', (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (db && request.params.name === SAME_WORK_TOOLS.read) return getTask(db, authorization, args) as never;
    if (db && request.params.name === SAME_WORK_TOOLS.write) return updateTask(db, authorization, args) as never;
    if (request.params.name !== ECHO_TOOL.name) return { content: [{ type: 'text', text: `Unknown tool: ${request.params.name}` }], isError: true };
    return { content: [{ type: 'text', text: String(args.text) }] };
  });
  return server;
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => {
      try {
        resolve(JSON.parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
    req.once('error', reject);
  });
}

/** The request as the SDK reads it: method and headers (the body goes alongside, parsed) — as ours builds it. */
function webRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  return new Request(`http://localhost${req.url ?? '/'}`, { method: req.method, headers });
}

async function writeResponse(response: Response, res: http.ServerResponse): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'transfer-encoding') res.setHeader(name, value);
  });
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/** A node:http request listener serving each catalogue at its path. */
export function bareHandler(catalogues: Record<string, Tool[]>, db: SameWork | null = null): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  // Per path: the catalogue (+ echo) and the modern leg, created once; the caller's Authorization reaches the
  // per-request server as the SDK's authInfo token.
  const routes = new Map(
    Object.entries(catalogues).map(([path, list]) => {
      const tools = [...list, ECHO_TOOL as Tool];
      return [`/${path}`, { tools, modern: createMcpHandler((c) => createServer(tools, db, c.authInfo?.token ?? null), { legacy: 'reject' }) }];
    }),
  );
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const route = routes.get(req.url ?? '');
    if (req.method !== 'POST' || !route) {
      res.writeHead(req.method !== 'POST' ? 405 : 404).end();
      return;
    }
    const body = await readJson(req);
    const request = webRequest(req);
    const authorization = req.headers.authorization ?? null;
    let response: Response;
    if (await isLegacyRequest(request, body)) {
      const server = createServer(route.tools, db, authorization);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: body });
    } else {
      const authInfo = { token: authorization ?? '', clientId: 'bare', scopes: [] };
      response = await route.modern.fetch(request, authorization ? { parsedBody: body, authInfo } : { parsedBody: body });
    }
    await writeResponse(response, res);
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('bare server:', err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}

if (process.send && process.argv.includes('--bare-mcp-child')) {
  installProfilerIpc();
  process.on('message', (msg: { catalogues?: Record<string, Tool[]>; databaseUrl?: string }) => {
    if (!msg.catalogues) return;
    const db = msg.databaseUrl ? { pool: new pg.Pool({ connectionString: msg.databaseUrl, max: Number(process.env.BENCH_BARE_POOL ?? 10) }) } : null;
    const server = http.createServer(bareHandler(msg.catalogues, db));
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      process.send!({ url: `http://127.0.0.1:${port}` });
    });
  });
  process.send({ ready: true });
}
