import { RouteTable } from '../../src/shared/http/route-table.js';
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
});
