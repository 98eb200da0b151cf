import fc from 'fast-check';
import { FUZZ_RUNS, fuzzParams, fuzzTimeout, OutcomeStats, settle } from './support/config.js';
import { DbChecksum } from './support/db-checksum.js';
import { restProblems } from './support/expectations.js';
import { FuzzWorld } from './support/fuzz-world.js';
import { buildRequest, caseArb, operationsOf, queryNames, schemaContext, type OpenApiDoc, type Operation, type RestCase } from './support/rest-cases.js';
import { describeRequest, NotSendable, send } from './support/raw-http.js';

/**
 * Every REST route of the service's own OpenAPI document, fuzzed: path parameters (records of the caller's company,
 * of the other company, random and malformed uuids, `..`, percent-encoding), query strings (repeated, bracketed,
 * huge, hostile), bodies (schema-shaped with hostile fields, missing/extra/prototype-pollution keys, wrong types,
 * huge strings, deep nesting, 1e309 / -0, invalid JSON, wrong content types) and credentials / Origin / headers.
 *
 * Every answer: no 5xx, no hang, the documented envelope; a refused request (4xx) and every GET leave the database
 * exactly as it was (DbChecksum).
 */
const ROUTE_RUNS = Math.max(2, Math.ceil(FUZZ_RUNS / 10));

/**
 * Documented writes of a successful read, left out of the "reads change nothing" check: the first read of a
 * recipient's preferences creates their default row (docs/notifications.md §2).
 */
const READ_SIDE_EFFECTS: Record<string, string[]> = { 'GET /api/notifications/preferences': ['notification_preference'] };
/** What a refused request may write: a failed sign-in is counted (login throttling, docs/deploy.md "Abuse limits"). */
const REFUSAL_SIDE_EFFECTS: Record<string, string[]> = { 'POST /api/auth/login': ['login_failure'] };

describe('fuzz: REST routes', () => {
  let world: FuzzWorld;
  let doc: OpenApiDoc;
  let ops: Operation[];

  beforeAll(async () => {
    world = await FuzzWorld.start();
    doc = (await (await fetch(`${world.url}/api/docs.json`)).json()) as OpenApiDoc;
    ops = operationsOf(doc);
  }, 60_000);
  const stats = new OutcomeStats();
  afterAll(async () => {
    stats.print('REST');
    await world?.close();
  });

  /** Sends one case and returns its problems (envelope, status, database). */
  async function exercise(c: RestCase): Promise<void> {
    const req = buildRequest(c, world.a, world.b);
    const before = await world.checksum.take();
    let problems: string[];
    let status = 0;
    try {
      const res = await send(world.url, req);
      status = res.status;
      stats.add(`${res.status} ${(res.json as { error?: { code?: string } } | undefined)?.error?.code ?? ''}`);
      problems = restProblems(req, res);
      if (res.status >= 500) problems.push(world.causeOf((res.json as { error?: { errorId?: string } } | undefined)?.error?.errorId));
      if (res.status >= 400 || req.method === 'GET' || req.method === 'HEAD') {
        const allowed = (res.status < 400 ? READ_SIDE_EFFECTS : REFUSAL_SIDE_EFFECTS)[`${c.op.method} ${c.op.path}`] ?? [];
        const changed = DbChecksum.diff(before, await world.checksum.take()).filter((p) => !allowed.some((t) => p.startsWith(`table "${t}"`)));
        problems.push(...changed.map((p) => `HTTP ${res.status} but ${p}`));
      }
    } catch (err) {
      if (err instanceof NotSendable) return;
      problems = [`request failed: ${String(err)}`];
    }
    settle(problems, () => describeRequest(req));
    // A fuzzed logout (or a refused request that still ended the session) must not end the fuzzing of A's routes.
    if (c.op.path === '/api/auth/logout' || status === 401) await world.ensureSession();
  }

  it('lists the routes to fuzz from /api/docs.json', () => {
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual(expect.arrayContaining(['POST /api/auth/login', 'GET /api/tasks/{uuid}', 'PATCH /api/notifications/{uuid}/read']));
  });

  it(
    `every route, ${ROUTE_RUNS} hostile requests each: no 5xx, the envelope, no state change when refused`,
    async () => {
      const ctx = schemaContext(world, doc);
      const names = queryNames(ops);
      for (const op of ops) {
        await world.refreshPools();
        try {
          await fc.assert(fc.asyncProperty(caseArb(op, ctx, names), exercise), { ...fuzzParams(), numRuns: ROUTE_RUNS });
        } catch (err) {
          throw new Error(`${op.method} ${op.path}: ${(err as Error).message}`);
        }
      }
    },
    fuzzTimeout(12),
  );

  it(
    'random routes, random everything',
    async () => {
      await world.refreshPools();
      const ctx = schemaContext(world, doc);
      const names = queryNames(ops);
      const arb = fc.constantFrom(...ops).chain((op) => caseArb(op, ctx, names));
      await fc.assert(fc.asyncProperty(arb, exercise), fuzzParams(2));
    },
    fuzzTimeout(2),
  );
});
