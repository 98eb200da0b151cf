import { RATE_LIMITED_RPC_CODE } from '../../src/modules/tools/index.js';
import { AgentService } from '../../src/modules/identity/index.js';
import { ManualClock } from '../utils/clock.js';
import { mcpClient, mcpClientV1, rpc } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

async function seedKeys(app: World): Promise<{ key: string; agentUuid: string; companyUuid: string }> {
  const f = app.ids;
  const c = await f.company();
  const u = await f.user(c.uuid);
  const { key, agent } = await f.agent(c.uuid, u.uuid, { preset: 'developer_agent' });
  return { key, agentUuid: agent.uuid, companyUuid: c.uuid };
}

describe('tool endpoint rate limit per API key (e2e)', () => {
  describe('MCP_RATE_LIMIT_PER_MINUTE=30 (a burst of 30, then 30 a minute, per key and instance)', () => {
    // The app's clock, moved by the test instead of waiting for tokens to come back.
    const clock = new ManualClock();
    let app: World;
    let seeded: { key: string; agentUuid: string; companyUuid: string };
    const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

    /** Spends what is left of the key's bucket: the first refused answer, and how many were served before it. */
    async function exhaust(key: string) {
      for (let i = 0; i < 100; i++) {
        const res = await rpc(app.url, LIST, bearer(key));
        if (res.status !== 200) return { res, served: i };
      }
      throw new Error('never limited');
    }

    beforeAll(async () => {
      app = await World.start({ env: { MCP_RATE_LIMIT_PER_MINUTE: '30' }, clock });
      seeded = await seedKeys(app);
    });
    afterAll(() => app.close());

    it('answers 429 with Retry-After and a JSON-RPC body carrying RATE_LIMITED once the bucket is spent', async () => {
      const { res, served } = await exhaust(seeded.key);
      expect(served).toBe(30);
      expect(res.status).toBe(429);
      // A bucket of 30 refilled at 30 a minute: the clock has not moved since, so the next token is 2 s away.
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).toBe(2);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.json).toEqual({
        jsonrpc: '2.0',
        error: { code: RATE_LIMITED_RPC_CODE, message: 'Too many requests', data: { code: 'RATE_LIMITED', retryAfterSeconds: retryAfter } },
        id: null,
      });
      // Refused before any JSON-RPC processing: not even the body or its headers are looked at.
      const garbage = await rpc(app.url, 'not json', { ...bearer(seeded.key), 'content-type': 'text/plain', accept: 'text/html' });
      expect(garbage.status).toBe(429);
      // Half a token later the key is still refused, told the rest; Retry-After seconds after a refusal, one is served.
      clock.advance(1000);
      const later = await rpc(app.url, LIST, bearer(seeded.key));
      expect([later.status, later.headers.get('retry-after')]).toEqual([429, '1']);
      clock.advance(1000);
      expect((await exhaust(seeded.key)).served).toBe(1);
      // A minute untouched fills the bucket: a whole burst again.
      clock.advance(60_000);
      expect((await exhaust(seeded.key)).served).toBe(30);
    });

    it('refuses a limited key before any tool runs', async () => {
      await exhaust(seeded.key);
      const [before] = await app.db.dataSource.query(`SELECT last_active_at FROM agent WHERE uuid = $1`, [seeded.agentUuid]);
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'svc_checkin', arguments: {} } }, bearer(seeded.key));
      expect(res.status).toBe(429);
      const [after] = await app.db.dataSource.query(`SELECT last_active_at FROM agent WHERE uuid = $1`, [seeded.agentUuid]);
      expect(after.last_active_at).toEqual(before.last_active_at);
    });

    it('counts each key on its own, even two keys of one agent', async () => {
      await exhaust(seeded.key);
      const m = { companyUuid: seeded.companyUuid, userUuid: null };
      const second = await app.get(AgentService).createKey(m, seeded.agentUuid, { name: 'second' });
      expect((await rpc(app.url, LIST, bearer(second.key))).status).toBe(200);
      expect((await rpc(app.url, LIST, bearer(seeded.key))).status).toBe(429);
    });

    it('keeps answering unauthenticated requests 401, however many', async () => {
      const unknown = `agk_${'B'.repeat(43)}`;
      for (let i = 0; i < 40; i++) {
        const res = await rpc(app.url, LIST, bearer(unknown));
        expect(res.status).toBe(401);
        expect(res.json.error.code).toBe(-32001);
      }
      expect((await rpc(app.url, LIST)).status).toBe(401);
    });

    it('surfaces to the official SDK clients (v2 and v1) as an HTTP 429 error', async () => {
      const { key } = await seedKeys(app);
      const client = await mcpClient(app.url, key); // server/discover: one token
      const v1 = await mcpClientV1(app.url, key); // initialize + initialized: two tokens
      try {
        await exhaust(key);
        await expect(client.listTools()).rejects.toMatchObject({ status: 429 });
        await expect(v1.listTools()).rejects.toMatchObject({ code: 429 });
      } finally {
        await client.close();
        await v1.close();
      }
    });
  });

  describe('MCP_RATE_LIMIT_PER_MINUTE=0', () => {
    let app: World;
    beforeAll(async () => {
      app = await World.start({ env: { MCP_RATE_LIMIT_PER_MINUTE: '0' } });
    });
    afterAll(() => app.close());

    it('turns the limit off', async () => {
      const { key } = await seedKeys(app);
      const statuses = await Promise.all(Array.from({ length: 60 }, () => rpc(app.url, LIST, { authorization: `Bearer ${key}` }).then((r) => r.status)));
      expect(new Set(statuses)).toEqual(new Set([200]));
    });
  });
});
