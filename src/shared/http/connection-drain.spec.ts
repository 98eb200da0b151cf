import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionDrain } from './connection-drain.js';

/** A real server whose handler answers when the test says so, and a keep-alive client. */
async function setup() {
  const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  const server = http.createServer((req, res) => held.push({ req, res }));
  const drain = new ConnectionDrain(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const port = (server.address() as AddressInfo).port;
  const get = (path: string) =>
    new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
        })
        .on('error', reject);
    });
  const waitHeld = async (n: number) => {
    while (held.length < n) await new Promise((r) => setTimeout(r, 5));
  };
  let closed = false;
  const close = () => server.close(() => (closed = true));
  return { server, drain, agent, get, held, waitHeld, close, isClosed: () => closed };
}

describe('ConnectionDrain', () => {
  it('answers the in-flight request normally with Connection: close, so the server closes while the client keeps its pool', async () => {
    const t = await setup();
    try {
      const first = t.get('/one');
      await t.waitHeld(1);
      t.drain.begin();
      t.close();
      t.held[0].res.end('done');
      expect(await first).toEqual({ status: 200, connection: 'close', body: 'done' });
      for (let i = 0; i < 200 && !t.isClosed(); i++) await new Promise((r) => setTimeout(r, 10));
      // Without the drain the pooled connection stays open (keep-alive) and server.close() waits for it.
      expect(t.isClosed()).toBe(true);
    } finally {
      t.agent.destroy();
      t.server.closeAllConnections();
    }
  });

  it('closes a connection whose response had already started once that response is done', async () => {
    const t = await setup();
    try {
      const streaming = t.get('/stream');
      await t.waitHeld(1);
      t.held[0].res.writeHead(200, { 'Content-Type': 'text/plain' });
      t.held[0].res.write('part ');
      await new Promise((r) => setTimeout(r, 50));
      t.drain.begin();
      t.close();
      t.held[0].res.end('end');
      expect(await streaming).toEqual({ status: 200, connection: 'keep-alive', body: 'part end' });
      for (let i = 0; i < 200 && !t.isClosed(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(t.isClosed()).toBe(true);
    } finally {
      t.agent.destroy();
      t.server.closeAllConnections();
    }
  });
});
