import { randomUUID } from 'node:crypto';
import { World } from '../utils/world.js';
import { HttpClient } from '../utils/http.js';

describe('REST error envelope (e2e)', () => {
  let app: World;
  let http: HttpClient;

  beforeAll(async () => {
    app = await World.start();
    http = new HttpClient(app.url);
    const f = app.ids;
    const company = await f.company();
    const user = await f.user(company.uuid);
    await http.login(user.email, user.password);
  });
  afterAll(() => app.close());

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
