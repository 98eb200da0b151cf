import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InProcessEventBus } from '../../shared/event-bus/in-process-event-bus.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { SseHub } from './sse-hub.js';

describe('SseHub after close (shutdown)', () => {
  it('ends a stream opened after close at once, cleanly, instead of keeping it (and the process) open', async () => {
    const hub = new SseHub(new InProcessEventBus(() => undefined), new MetricsService(), 30_000);
    let ended = 0;
    const server = http.createServer((_req, res) => hub.open('changes', res, 'company', null, () => ended++));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      // A request that was in flight when shutdown ended the streams reaches the hub afterwards.
      hub.close();
      const res = await new Promise<{ status: number; type: string | undefined; body: string; complete: boolean }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', agent: false }, (r) => {
            let body = '';
            r.on('data', (c: Buffer) => (body += c.toString()));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, type: r.headers['content-type'], body, complete: r.complete }));
          })
          .on('error', reject);
      });
      expect(res).toEqual({ status: 200, type: 'text/event-stream', body: ': connected\n\n', complete: true });
      expect({ size: hub.size, timers: hub.timerCount, ended }).toEqual({ size: 0, timers: 0, ended: 1 });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
