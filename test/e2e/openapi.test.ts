import { Ajv, type ValidateFunction } from 'ajv';
import { RouteTable } from '../../src/shared/http/route-table.js';
import type { HttpClient, HttpResult } from '../utils/http.js';
import { World } from '../utils/world.js';

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
  let app: World;
  beforeAll(async () => {
    app = await World.start();
  });
  afterAll(() => app.close());

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
