import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { changeJson, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';
import { HttpClient } from '../utils/http.js';
import { TestNatsServer } from '../utils/nats-server.js';
import { dataIds, openEventSource, openRaw, type TestEventSource } from '../utils/sse.js';
import { World } from '../utils/world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

/**
 * The service started while its NATS server is down (docs/platform.md §7): start-up completes, readiness reports the bus
 * down while mutations and local streams work, and once NATS comes up the bus connects on its own and relays both
 * ways with the body `{origin, payload}`.
 */
describe('starting with NATS down', () => {
  let nats: TestNatsServer;
  let app: World;
  let http: HttpClient;
  let stream: TestEventSource;
  let raw: NatsConnection | null = null;
  let companyUuid: string;
  let projectUuid: string;
  const prefix = `ns${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    nats = await TestNatsServer.reserve();
    app = await World.start({ env: { NATS_URL: nats.url, BUS_SUBJECT_PREFIX: prefix, SSE_HEARTBEAT_MS: '30000' } });
    const ids = app.ids;
    companyUuid = (await ids.company()).uuid;
    const user = await ids.user(companyUuid);
    http = new HttpClient(app.url);
    await http.login(user.email, user.password);
    projectUuid = (await http.post('/api/projects', { name: 'Before NATS' })).body.data.uuid;
    stream = openEventSource(`${app.url}/api/events?projectUuid=${projectUuid}`, http.cookie!);
    await stream.opened;
  }, 60_000);

  afterAll(async () => {
    stream?.close();
    await raw?.close();
    await app?.close();
    await nats?.stop();
  });

  const createIdea = async (title: string): Promise<string> => {
    const res = await http.post(`/api/projects/${projectUuid}/ideas`, { title });
    expect(res.status).toBe(201);
    return res.body.data.uuid as string;
  };

  it('is live, reports the bus down in readiness, and keeps mutations and local streams working', async () => {
    expect((await http.get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await http.get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', checks: { database: 'up', bus: 'down' } });
    const idea = await createIdea('While NATS is down');
    expect((await stream.waitFor(1)).map((m) => JSON.parse(m).entityUuid)).toEqual([idea]);
  });

  it('connects once NATS is up, without ending open streams, and relays both ways with the exact body', async () => {
    await nats.start();
    await until('ready', async () => (await http.get('/health/ready')).status === 200);
    expect((await http.get('/health/ready')).body).toEqual({ status: 'ok', checks: { database: 'up', bus: 'up' } });

    raw = await connect({ servers: nats.url });
    const bodies: string[] = [];
    raw.subscribe(`${prefix}.change.${companyUuid}`, { callback: (_err, m) => void bodies.push(m.string()) });
    await raw.flush();
    const idea = await createIdea('After NATS came up');
    await until('the change on NATS', async () => bodies.length === 1);
    const body = JSON.parse(bodies[0]) as { origin: string; position: string; payload: unknown };
    expect(Object.keys(body)).toEqual(['origin', 'position', 'payload']);
    expect(body.position).toMatch(/^[0-9a-z]+-\d+$/);
    expect(body.payload).toEqual({ companyUuid, projectUuid, entityType: 'idea', entityUuid: idea, action: 'created' });

    // Another instance commits (its frame logged at the next position) and publishes with the raw client: the open
    // stream (never reset) gets it, relayed.
    const peer: RealtimeEvent = { companyUuid, projectUuid, entityType: 'idea', entityUuid: randomUUID(), action: 'updated' };
    const [position] = await app.ds.transaction((em) => app.get(StreamLog).append(em, 'c', [{ key: companyUuid, projectUuid, payload: changeJson(peer) }]));
    raw.publish(`${prefix}.change.${companyUuid}`, JSON.stringify({ origin: randomUUID(), position, payload: peer }));
    const frames = (await stream.waitFor(3)).map((m) => JSON.parse(m));
    expect(frames.slice(1)).toEqual([expect.objectContaining({ entityUuid: idea }), peer]);
  });
});

describe('stopping while NATS is down', () => {
  it('stops without waiting for NATS', async () => {
    const nats = await TestNatsServer.reserve();
    const app = await World.start({ env: { NATS_URL: nats.url } });
    expect((await fetch(`${app.url}/health/ready`)).status).toBe(503);
    await app.close();
    expect(app.logs.filter((l) => l.level === 'fatal' || l.level === 'error')).toEqual([]);
  });
});

/** Resume across instances (docs/sse.md): moved here from the e2e resume suite, as it stops and starts a nats-server. */
describe('two instances over NATS', () => {
  let nats: TestNatsServer;
  let a: World;
  let b: World;

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await nats?.stop();
  });

  it('defect 1: an instance started while NATS is down delivers, once NATS is up, what another instance committed meanwhile', async () => {
    nats = await TestNatsServer.reserve();
    const env = { NATS_URL: nats.url, BUS_SUBJECT_PREFIX: `r${randomUUID().slice(0, 8)}`, SSE_HEARTBEAT_MS: '60000' };
    a = await World.start({ env });
    b = await World.start({ env, sharing: a });
    const c = await a.ids.company();
    const u = await a.ids.user(c.uuid);
    const ha = new HttpClient(a.url);
    await ha.login(u.email, u.password);
    // One session, used on both instances (as a browser behind a load balancer).
    const hb = new HttpClient(b.url);
    hb.cookie = ha.cookie;
    const onB = await openRaw(`${b.url}/api/events`, { cookie: hb.cookie! });
    await onB.waitForText('retry: ');
    // NATS is down: a commit on A reaches only A's streams (and the log).
    const project = (await ha.post('/api/projects', { name: 'While down' })).body.data.uuid as string;
    const idea = (await ha.post(`/api/projects/${project}/ideas`, { title: 'Committed while NATS was down' })).body.data.uuid as string;
    await sleep(300);
    expect(onB.body()).not.toContain(idea);
    await nats.start();
    // Once both connect, B reads what it missed from the log; its stream is not ended for it.
    await onB.waitForText(idea, 15_000);
    expect(dataIds(onB)).toHaveLength(1);
    // And live relaying works both ways from then on, logout included.
    const second = (await hb.post(`/api/projects/${project}/ideas`, { title: 'After' })).body.data.uuid as string;
    const onA = await openRaw(`${a.url}/api/events`, { cookie: ha.cookie! });
    await onA.waitForText('retry: ');
    const third = (await hb.post(`/api/projects/${project}/ideas`, { title: 'Relayed' })).body.data.uuid as string;
    await onA.waitForText(third, 5000);
    await onB.waitForText(second, 5000);
    // Logging out on B ends the session's streams on B and, through a session-ended message on the bus, on A.
    await hb.post('/api/auth/logout');
    await Promise.all([onA.ended, onB.ended]);
  }, 60_000);
});
