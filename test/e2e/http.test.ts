import { World } from '../utils/world.js';
import { HttpClient, type HttpResult } from '../utils/http.js';
import { randomUUID } from 'node:crypto';
import { rpc } from '../utils/mcp-client.js';
import { openRaw } from '../utils/sse.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { RouteTable } from '../../src/shared/http/route-table.js';

/** One app for the whole file; each block below seeds companies of its own. */
let app: World;
beforeAll(async () => {
  app = await World.start();
});
afterAll(() => app.close());

describe('ops endpoints (e2e)', () => {
  let http: HttpClient;

  beforeAll(async () => {
    http = new HttpClient(app.url);
  });

  it('serves liveness and readiness without auth or envelope', async () => {
    expect((await http.get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'up', bus: 'disabled' } });
  });

  it('serves Prometheus metrics with the HTTP histogram by route pattern', async () => {
    await http.get('/api/agents/00000000-0000-4000-8000-000000000000');
    const res = await http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toContain('svc_http_request_duration_seconds_bucket');
    expect(res.text).toMatch(/route="\/api\/agents\/:uuid"/);
    expect(res.text).not.toContain('00000000-0000-4000-8000-000000000000');
  });

  it('reports 503 when the database goes away and 200 when it returns', async () => {
    // Terminate every pool connection and block new ones, as a server outage would.
    const { adminQuery } = await import('../utils/test-database.js');
    await adminQuery(`ALTER DATABASE "${app.db.name}" WITH ALLOW_CONNECTIONS false`);
    await adminQuery(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${app.db.name}'`);
    const down = await http.get('/health/ready');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'unavailable', checks: { database: 'down', bus: 'disabled' } });
    const rest = await http.get('/api/auth/me', { cookie: 'svc_session=abc' });
    expect(rest.status).toBe(503);
    expect(rest.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(rest.headers.get('retry-after')).toBe('5');
    await adminQuery(`ALTER DATABASE "${app.db.name}" WITH ALLOW_CONNECTIONS true`);
    let up = await http.get('/health/ready');
    for (let i = 0; i < 20 && up.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      up = await http.get('/health/ready');
    }
    expect(up.status).toBe(200);
  });
});

describe('REST error envelope (e2e)', () => {
  let http: HttpClient;

  beforeAll(async () => {
    http = new HttpClient(app.url);
    const f = app.ids;
    const company = await f.company();
    const user = await f.user(company.uuid);
    await http.login(user.email, user.password);
  });

  it('answers malformed JSON with 400 BAD_REQUEST "Invalid JSON body"', async () => {
    const res = await http.request('POST', '/api/agents', { body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: { code: 'BAD_REQUEST', message: 'Invalid JSON body' } });
  });

  it('refuses a body nested deeper than 64 levels with 400 BAD_REQUEST instead of overflowing the stack (500)', async () => {
    const nested = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
    for (const depth of [65, 20_000]) {
      const res = await http.request('PATCH', `/api/tasks/${randomUUID()}`, { body: `{"title":"x","extra":${nested(depth - 1)}}`, headers: { 'content-type': 'application/json' } });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { success: false, error: { code: 'BAD_REQUEST', message: 'JSON body is nested too deeply (at most 64 levels)' } },
      });
    }
    // 64 levels still reach validation (here: the unknown field is refused).
    const ok = await http.request('PATCH', `/api/tasks/${randomUUID()}`, { body: `{"title":"x","extra":${nested(63)}}`, headers: { 'content-type': 'application/json' } });
    expect(ok.status).toBe(400);
    expect(ok.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a NUL character in a body or query string with 400 VALIDATION_ERROR naming the field (PostgreSQL cannot store it: was 500)', async () => {
    const nul = { code: 'VALIDATION_ERROR', message: 'Invalid input' };
    const login = await new HttpClient(app.url).post('/api/auth/login', { email: 'a\u0000b@example.test', password: 'whatever-123' });
    expect({ status: login.status, body: login.body }).toEqual({ status: 400, body: { success: false, error: { ...nul, details: [{ field: 'email', message: 'must not contain NUL (U+0000) characters' }] } } });
    const project = await http.post('/api/projects', { name: 'ok', description: 'x\u0000y' });
    expect({ status: project.status, body: project.body }).toEqual({ status: 400, body: { success: false, error: { ...nul, details: [{ field: 'description', message: 'must not contain NUL (U+0000) characters' }] } } });
    const search = await http.get('/api/search?q=a%00b');
    expect({ status: search.status, body: search.body }).toEqual({ status: 400, body: { success: false, error: { ...nul, details: [{ field: 'q', message: 'must not contain NUL (U+0000) characters' }] } } });
    expect(await app.db.dataSource.query(`SELECT count(*)::int AS n FROM project`)).toEqual([{ n: 0 }]);
  });

  it('refuses unpaired UTF-16 surrogates with 400 VALIDATION_ERROR naming the field (jsonb refused them: was 500)', async () => {
    const project = (await http.post('/api/projects', { name: 'Surrogates' })).body.data;
    const res = await http.post(`/api/projects/${project.uuid}/documents`, { type: 'spec', title: '\ud800x', content: 'ok' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { success: false, error: { code: 'VALIDATION_ERROR', message: 'Invalid input', details: [{ field: 'title', message: 'must be well-formed Unicode (no unpaired surrogates)' }] } },
    });
    const paired = await http.post(`/api/projects/${project.uuid}/documents`, { type: 'spec', title: 'Emoji 😀', content: 'ok' });
    expect(paired.status).toBe(201);
    expect(await app.db.dataSource.query(`SELECT title FROM document`)).toEqual([{ title: 'Emoji 😀' }]);
  });

  it('refuses a non-JSON body with 400 BAD_REQUEST', async () => {
    const res = await http.request('POST', '/api/agents', { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });

  it('answers wrong types with VALIDATION_ERROR and dotted details', async () => {
    const res = await http.post('/api/agents', { name: 42, permissions: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['name', 'permissions']));
  });

  it('answers unknown fields with VALIDATION_ERROR naming the field', async () => {
    const res = await http.post('/api/agents', { name: 'A', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'colour', message: 'should not exist' }]);
  });

  it('answers bodies over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await http.post('/api/agents', { name: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers unknown routes with the 404 envelope', async () => {
    const res = await http.get('/api/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Route not found' } });
  });

  it('answers a known path with an unsupported method with 405 and Allow', async () => {
    const res = await http.request('PUT', '/api/auth/login', { json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const ok = await http.get('/health/live', { 'x-request-id': 'abc.DEF-123_x' });
    expect(ok.headers.get('x-request-id')).toBe('abc.DEF-123_x');
    const bad = await http.get('/health/live', { 'x-request-id': 'has spaces!' });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a malformed path uuid with 404, not 400 or 500', async () => {
    const res = await http.get('/api/agents/not-a-uuid');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: 'Agent not found' });
  });
});

describe('security headers', () => {
  type HeaderSource = { get(name: string): string | null };

  /** The headers every answer carries on a plain-http deployment. */
  function expectSecurityHeaders(label: string, h: HeaderSource): void {
    const seen = {
      label,
      nosniff: h.get('x-content-type-options'),
      frameOptions: h.get('x-frame-options'),
      referrer: h.get('referrer-policy'),
      poweredBy: h.get('x-powered-by'),
      hsts: h.get('strict-transport-security'),
      coop: h.get('cross-origin-opener-policy'),
      corp: h.get('cross-origin-resource-policy'),
    };
    expect(seen).toEqual({
      label,
      nosniff: 'nosniff',
      frameOptions: 'DENY',
      referrer: 'no-referrer',
      poweredBy: null,
      hsts: null,
      coop: 'same-origin',
      corp: 'same-origin',
    });
    const csp = h.get('content-security-policy') ?? '';
    expect([label, csp]).toEqual([label, expect.stringContaining("frame-ancestors 'none'")]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
  }

  const fromNode = (headers: Record<string, string | string[] | undefined>): HeaderSource => ({
    get: (name) => {
      const v = headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  });

  describe('security headers (e2e)', () => {
    let http: HttpClient;
    let key: string;

    beforeAll(async () => {
      const f = app.ids;
      const c = await f.company();
      const u = await f.user(c.uuid);
      key = (await f.agent(c.uuid, u.uuid)).key;
      http = new HttpClient(app.url);
      await http.login(u.email, u.password);
    });

    it('are on REST answers, successes and errors alike', async () => {
      const anonymous = new HttpClient(app.url);
      const cases: Array<[string, Promise<{ status: number; headers: Headers }>, number]> = [
        ['me', http.get('/api/auth/me'), 200],
        ['list', http.get('/api/agents'), 200],
        ['created', http.post('/api/agents', { name: 'Headers' }), 201],
        ['unauthenticated', anonymous.get('/api/auth/me'), 401],
        ['unknown route', http.get('/api/nope'), 404],
        ['wrong method', http.request('PUT', '/api/auth/login'), 405],
        ['validation', anonymous.post('/api/auth/login', { email: 'x@example.test' }), 400],
        ['bad json', anonymous.request('POST', '/api/auth/login', { body: '{', headers: { 'content-type': 'application/json' } }), 400],
        ['bad login', anonymous.post('/api/auth/login', { email: 'x@example.test', password: 'wrong password' }), 401],
        ['not found', http.get('/api/agents/7b1c7a36-1b7e-4f57-9a3f-0e0a1c7f3b9d'), 404],
        ['live', anonymous.get('/health/live'), 200],
        ['ready', anonymous.get('/health/ready'), 200],
        ['metrics', anonymous.get('/metrics'), 200],
        ['docs', anonymous.get('/api/docs'), 200],
        ['docs json', anonymous.get('/api/docs.json'), 200],
      ];
      for (const [label, pending, status] of cases) {
        const res = await pending;
        expect([label, res.status]).toEqual([label, status]);
        expectSecurityHeaders(label, res.headers);
      }
    });

    it('are on the tool endpoint, which still answers plain JSON-RPC', async () => {
      const ok = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${key}` });
      expect(ok.status).toBe(200);
      expect(ok.json.result.tools.length).toBeGreaterThan(0);
      expectSecurityHeaders('mcp 200', ok.headers);
      const refused = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(refused.status).toBe(401);
      expectSecurityHeaders('mcp 401', refused.headers);
      const get = await fetch(`${app.url}/api/mcp`);
      expect(get.status).toBe(405);
      expectSecurityHeaders('mcp 405', get.headers);
    });

    it('leave SSE streams intact: event-stream headers, unbuffered frames', async () => {
      const stream = await openRaw(`${app.url}/api/events`, { cookie: http.cookie! });
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers['content-type']).toBe('text/event-stream');
        expect(stream.headers['cache-control']).toContain('no-cache');
        expect(stream.headers['x-accel-buffering']).toBe('no');
        expect(stream.headers['content-encoding']).toBeUndefined();
        expectSecurityHeaders('sse', fromNode(stream.headers));
        await stream.waitForText(': connected');
      } finally {
        stream.close();
      }
      const refused = await openRaw(`${app.url}/api/events`);
      expect(refused.status).toBe(401);
      expectSecurityHeaders('sse 401', fromNode(refused.headers));
      refused.close();
    });

    describe('on an https deployment (COOKIE_SECURE=true)', () => {
      let secure: World;
      beforeAll(async () => {
        secure = await World.start({ env: { COOKIE_SECURE: 'true' } });
      });
      afterAll(() => secure.close());

      it('add HSTS (without includeSubDomains) and upgrade-insecure-requests, on errors too', async () => {
        for (const path of ['/health/live', '/api/auth/me', '/api/nope']) {
          const res = await fetch(`${secure.url}${path}`);
          expect([path, res.headers.get('strict-transport-security')]).toEqual([path, 'max-age=15552000']);
          expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
          expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        }
      });
    });
  });
});

describe('OpenAPI', () => {
  const STANDARD = new Set(['get', 'post', 'put', 'patch', 'delete']);

  /** Every route the app serves (from Express's router), as "METHOD /path/{param}". */
  function servedRoutes(app: World): string[] {
    const express = app.service.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } };
    const out: string[] = [];
    for (const layer of express.router.stack) {
      if (!layer.route) continue;
      const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && STANDARD.has(m)) out.push(`${m.toUpperCase()} ${path}`);
    }
    return out;
  }

  type Schema = Record<string, any>;
  interface Operation {
    responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  }
  interface OpenApi {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Schema> };
  }

  /**
   * Routes that are no REST API of this service and answer no envelope: the MCP endpoint (JSON-RPC, described by the
   * MCP specification; its other methods answer 405) and the OAuth authorization server's discovery documents and
   * sign-in pages.
   */
  const NOT_REST = /^[A-Z]+ (\/api\/mcp$|\/\.well-known\/|\/oauth\/)/;
  /** Answered in their own format rather than the envelope: probes, metrics, the SSE streams. */
  const OWN_FORMAT = /^GET (\/health\/|\/metrics$|\/api\/events)/;

  /** The OpenAPI 3.0 schema as JSON Schema for Ajv: `nullable: true` becomes a union with null. */
  function jsonSchema(s: unknown): unknown {
    if (Array.isArray(s)) return s.map(jsonSchema);
    if (!s || typeof s !== 'object') return s;
    const { nullable, ...rest } = s as Schema;
    const out: Schema = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, jsonSchema(v)]));
    if (out.enum?.includes(null)) return { enum: out.enum };
    return nullable ? { anyOf: [out, { type: 'null' }] } : out;
  }

  describe('OpenAPI document', () => {

    it('serves the UI at /api/docs and the JSON at /api/docs.json', async () => {
      const ui = await fetch(`${app.url}/api/docs`);
      expect(ui.status).toBe(200);
      expect(await ui.text()).toContain('swagger');
      const json = await (await fetch(`${app.url}/api/docs.json`)).json();
      expect(json.openapi).toMatch(/^3\./);
      expect(json.info.description).toContain('VALIDATION_ERROR');
    });

    it('documents every controller route the app serves', async () => {
      const json = (await (await fetch(`${app.url}/api/docs.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const documented = new Set<string>();
      for (const [path, ops] of Object.entries(json.paths)) for (const m of Object.keys(ops)) documented.add(`${m.toUpperCase()} ${path}`);
      const served = servedRoutes(app).filter((r) => !r.includes('/api/docs'));
      expect(served.length).toBeGreaterThan(10);
      const missing = served.filter((r) => !documented.has(r));
      expect(missing).toEqual([]);
      expect(app.get(RouteTable)).toBeDefined();
    });

    it('documents the inbox reads\' headers (position, poll interval, ETag) and their 304', async () => {
      type Op = { responses: Record<string, { headers?: Record<string, unknown> }> };
      const json = (await (await fetch(`${app.url}/api/docs.json`)).json()) as { paths: Record<string, Record<string, Op>> };
      const list = json.paths['/api/notifications'].get.responses;
      const count = json.paths['/api/notifications/unread-count'].get.responses;
      expect(Object.keys(list['200'].headers ?? {}).sort()).toEqual(['ETag', 'X-Poll-Interval', 'X-Stream-Position']);
      expect(Object.keys(count['200'].headers ?? {}).sort()).toEqual(['ETag', 'X-Stream-Position']);
      expect(Object.keys(list['304'].headers ?? {})).toContain('X-Stream-Position');
      expect(Object.keys(count['304'].headers ?? {})).toContain('X-Stream-Position');
    });

    describe('success answers', () => {
      let doc: OpenApi;
      const validators = new Map<string, ValidateFunction>();
      beforeAll(async () => {
        doc = (await (await fetch(`${app.url}/api/docs.json`)).json()) as OpenApi;
      });

      const success = (method: string, path: string) => {
        const op = doc.paths[path]?.[method.toLowerCase()];
        return Object.entries(op?.responses ?? {}).filter(([status]) => /^2/.test(status));
      };

      it('documents the schema of every route\'s success answer: the envelope around a response DTO for REST', () => {
        const served = servedRoutes(app).filter((r) => !r.includes('/api/docs') && !NOT_REST.test(r));
        expect(served.length).toBeGreaterThan(90);
        const problems: string[] = [];
        for (const route of served) {
          const [method, path] = route.split(' ');
          const answers = success(method, path);
          if (!answers.length) problems.push(`${route}: no 2xx response`);
          for (const [status, res] of answers) {
            const schemas = Object.values(res.content ?? {}).map((c) => c.schema);
            if (!schemas.length || schemas.some((sc) => !sc)) {
              problems.push(`${route} ${status}: no schema`);
              continue;
            }
            if (OWN_FORMAT.test(route)) continue;
            const envelope = res.content?.['application/json']?.schema;
            const data = envelope?.properties?.data;
            if (!envelope?.properties?.success || !data) problems.push(`${route} ${status}: not the envelope`);
            else if (data.$ref && !doc.components.schemas[String(data.$ref).replace('#/components/schemas/', '')]?.properties) problems.push(`${route} ${status}: ${data.$ref} missing`);
            else if (!data.$ref && !data.enum) problems.push(`${route} ${status}: data has no schema`);
          }
        }
        expect(problems).toEqual([]);
      });

      /** Checks an answer against the schema the document gives its route's success status. */
      function expectDocumented(method: string, path: string, res: HttpResult): void {
        const key = `${method} ${path} ${res.status}`;
        let validate = validators.get(key);
        if (!validate) {
          const schema = success(method, path).find(([status]) => Number(status) === res.status)?.[1].content?.['application/json']?.schema;
          expect({ route: key, documented: Boolean(schema), body: schema ? 'ok' : res.body }).toEqual({ route: key, documented: true, body: 'ok' });
          const ajv = new Ajv({ strict: false, allErrors: true });
          validate = ajv.compile({ ...(jsonSchema(schema) as Schema), components: { schemas: jsonSchema(doc.components.schemas) } });
          validators.set(key, validate);
        }
        const valid = validate(res.body);
        expect({ route: key, errors: valid ? [] : validate.errors }).toEqual({ route: key, errors: [] });
      }

      it('matches what the routes answer: records, pages, drafts, deletions, agents, notifications', async () => {
        const c = await app.company('Documented');
        const user = await app.user(c.uuid, { name: 'Documented' });
        const http: HttpClient = await app.login(user);
        const call = async (method: string, path: string, url: string, body?: unknown) => {
          const res = await http.request(method, url, body === undefined ? {} : { json: body });
          expect({ url, status: res.status < 300 ? 'ok' : res.body }).toEqual({ url, status: 'ok' });
          expectDocumented(method, path, res);
          return res.body?.data;
        };

        await call('GET', '/api/auth/me', '/api/auth/me');
        const group = await call('POST', '/api/project-groups', '/api/project-groups', { name: 'Group' });
        const project = await call('POST', '/api/projects', '/api/projects', { name: 'Project', groupUuid: group.uuid });
        const p = project.uuid;
        await call('GET', '/api/projects', '/api/projects');
        await call('GET', '/api/projects/{uuid}', `/api/projects/${p}`);
        await call('GET', '/api/project-groups', '/api/project-groups');
        await call('GET', '/api/project-groups/{uuid}', `/api/project-groups/${group.uuid}`);

        const idea = await call('POST', '/api/projects/{uuid}/ideas', `/api/projects/${p}/ideas`, { title: 'Idea', content: 'Why' });
        await call('POST', '/api/ideas/{uuid}/claim', `/api/ideas/${idea.uuid}/claim`);
        await call('POST', '/api/ideas/{uuid}/elaboration/rounds', `/api/ideas/${idea.uuid}/elaboration/rounds`, {
          depth: 'minimal',
          questions: [{ id: 'q1', text: 'Who?', category: 'functional', options: [{ id: 'a', label: 'Agents' }, { id: 'b', label: 'People' }] }],
        });
        await call('POST', '/api/ideas/{uuid}/elaboration/answers', `/api/ideas/${idea.uuid}/elaboration/answers`, { answers: [{ questionId: 'q1', selectedOptionId: 'a', customText: null }] });
        await call('GET', '/api/ideas/{uuid}/elaboration', `/api/ideas/${idea.uuid}/elaboration`);
        await call('GET', '/api/ideas/{uuid}', `/api/ideas/${idea.uuid}`);
        await call('GET', '/api/projects/{uuid}/ideas', `/api/projects/${p}/ideas`);

        const doc1 = await call('POST', '/api/projects/{uuid}/documents', `/api/projects/${p}/documents`, { type: 'spec', title: 'Spec', content: 'Text' });
        await call('GET', '/api/projects/{uuid}/documents', `/api/projects/${p}/documents`);
        const proposal = await call('POST', '/api/projects/{uuid}/proposals', `/api/projects/${p}/proposals`, { title: 'Proposal', inputType: 'document', inputUuids: [doc1.uuid] });
        await call('POST', '/api/proposals/{uuid}/document-drafts', `/api/proposals/${proposal.uuid}/document-drafts`, { type: 'prd', title: 'PRD', content: 'Draft' });
        await call('POST', '/api/proposals/{uuid}/task-drafts', `/api/proposals/${proposal.uuid}/task-drafts`, { title: 'Draft task', acceptanceCriteriaItems: [{ description: 'Works' }] });
        await call('GET', '/api/proposals/{uuid}', `/api/proposals/${proposal.uuid}?section=full`);
        await call('GET', '/api/proposals/{uuid}/validation', `/api/proposals/${proposal.uuid}/validation`);
        await call('GET', '/api/projects/{uuid}/proposals', `/api/projects/${p}/proposals`);

        const { tasks } = await call('POST', '/api/projects/{uuid}/tasks', `/api/projects/${p}/tasks`, {
          tasks: [{ title: 'First', acceptanceCriteriaItems: [{ description: 'Works' }] }, { title: 'Second', acceptanceCriteriaItems: [{ description: 'Works' }] }],
        });
        await call('PATCH', '/api/tasks/{uuid}', `/api/tasks/${tasks[1].uuid}`, { addDependsOn: [tasks[0].uuid] });
        await call('POST', '/api/tasks/{uuid}/claim', `/api/tasks/${tasks[0].uuid}/claim`);
        await call('GET', '/api/tasks/{uuid}', `/api/tasks/${tasks[1].uuid}`);
        await call('GET', '/api/projects/{uuid}/tasks', `/api/projects/${p}/tasks`);
        await call('POST', '/api/comments', '/api/comments', { targetType: 'task', targetUuid: tasks[0].uuid, content: 'Looks good' });
        await call('GET', '/api/comments', `/api/comments?targetType=task&targetUuid=${tasks[0].uuid}`);
        await call('POST', '/api/references', '/api/references', { targetType: 'task', targetUuid: tasks[0].uuid, type: 'docs', url: 'https://example.com/a', title: 'A' });
        await call('GET', '/api/projects/{uuid}/activity', `/api/projects/${p}/activity`);
        await call('GET', '/api/project-groups/{uuid}/dashboard', `/api/project-groups/${group.uuid}/dashboard`);
        await call('GET', '/api/search', '/api/search?q=First');
        await call('GET', '/api/mentionables', '/api/mentionables?q=Doc');
        await call('GET', '/api/sessions', '/api/sessions');
        await call('DELETE', '/api/tasks/{uuid}', `/api/tasks/${tasks[1].uuid}`);

        const agent = await call('POST', '/api/agents', '/api/agents', { name: 'Documented bot' });
        await call('POST', '/api/agents/{uuid}/keys', `/api/agents/${agent.uuid}/keys`, { name: 'laptop' });
        await call('GET', '/api/agents/{uuid}/keys', `/api/agents/${agent.uuid}/keys`);
        await call('GET', '/api/agents', '/api/agents');
        await call('GET', '/api/agents/{uuid}/grants', `/api/agents/${agent.uuid}/grants`);
        await call('DELETE', '/api/agents/{uuid}', `/api/agents/${agent.uuid}`);

        await call('GET', '/api/notifications', '/api/notifications');
        await call('GET', '/api/notifications/unread-count', '/api/notifications/unread-count');
        await call('GET', '/api/notifications/preferences', '/api/notifications/preferences');
        await call('POST', '/api/notifications/read-all', '/api/notifications/read-all', {});
        await call('POST', '/api/auth/logout', '/api/auth/logout');
      });
    });
  });
});
