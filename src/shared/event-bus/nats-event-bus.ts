import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { MetricsService } from '../metrics/metrics.service.js';
import type { BusEventKind, BusEvents, NotificationMessage, RealtimeEvent } from './events.js';
import { EventBus, type BusListener, type BusStatus } from './event-bus.port.js';
import { LocalListeners } from './local-listeners.js';

interface Envelope {
  origin: string;
  payload: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Several instances (platform.md §7): subjects `<prefix>.change.<companyUuid>` and
 * `<prefix>.notify.<recipientType>.<recipientUuid>`, body `{origin, payload}`. Every instance subscribes to all of
 * them without a queue group. Local listeners get a publish at once; messages that come back with our own origin
 * are dropped. While the channel is down, publishing skips NATS (nothing buffered or replayed), local delivery
 * goes on, and the reconnection is announced so streams can be reset.
 */
export class NatsEventBus extends EventBus {
  readonly instanceId = randomUUID();
  private readonly local: LocalListeners;
  private readonly reconnectListeners = new Set<() => void>();
  private nc: NatsConnection | null = null;
  private state: 'up' | 'down' = 'down';
  private wasConnected = false;
  private closed = false;
  private subs: Subscription[] = [];
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private lastPublishWarning = 0;

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly metrics: MetricsService,
  ) {
    super();
    this.local = new LocalListeners((err) => this.logger.error({ err: String(err) }, 'event listener failed'));
  }

  /** Starts connecting in the background; never throws, never blocks start-up on NATS. */
  start(): void {
    void this.connectLoop();
  }

  /** Resolves once connected (or after `timeoutMs`); for start-up and tests. */
  async waitUntilUp(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.state !== 'up' && Date.now() < deadline && !this.closed) await new Promise((r) => setTimeout(r, 25));
    return this.state === 'up';
  }

  private async connectLoop(): Promise<void> {
    while (!this.closed && !this.nc) {
      try {
        const nc = await connect({
          servers: this.url,
          name: `svc-${this.instanceId}`,
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
          reconnectJitter: 200,
          pingInterval: 10_000,
          maxPingOut: 2,
          noEcho: true,
        });
        if (this.closed) {
          await nc.close();
          return;
        }
        this.nc = nc;
        this.subscribeAll(nc);
        this.markUp(false);
        void this.watchStatus(nc);
      } catch (err) {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'NATS connection failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private subscribeAll(nc: NatsConnection): void {
    this.subs = [
      nc.subscribe(`${this.prefix}.change.*`, { callback: (err, msg) => void (err || this.receive('change', msg.data)) }),
      nc.subscribe(`${this.prefix}.notify.*.*`, { callback: (err, msg) => void (err || this.receive('notification', msg.data)) }),
    ];
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'staleConnection') {
        if (this.state === 'up') this.logger.warn('NATS connection lost; serving local events only');
        this.state = 'down';
      } else if (s.type === 'reconnect') {
        this.markUp(true);
      } else if (s.type === 'close') {
        this.state = 'down';
      }
    }
  }

  private markUp(reconnected: boolean): void {
    this.state = 'up';
    if (reconnected || this.wasConnected) {
      this.logger.info('NATS connection restored; ending open streams so browsers resync');
      for (const l of this.reconnectListeners) {
        try {
          l();
        } catch (err) {
          this.logger.error({ err: String(err) }, 'reconnect listener failed');
        }
      }
    } else {
      this.logger.info({ instanceId: this.instanceId }, 'NATS connected');
    }
    this.wasConnected = true;
  }

  private receive(kind: BusEventKind, data: Uint8Array): void {
    let env: Envelope;
    try {
      env = JSON.parse(this.decoder.decode(data)) as Envelope;
    } catch {
      return;
    }
    if (!env || env.origin === this.instanceId) return;
    const payload = kind === 'change' ? asChange(env.payload) : asNotification(env.payload);
    if (!payload) return;
    this.metrics.eventsRelayed.inc({ kind: kind === 'change' ? 'change' : 'notification' });
    // Relayed messages are only forwarded to local listeners flagged as relayed: they never cause writes.
    this.local.deliver(kind, payload as BusEvents[typeof kind], { relayed: true });
  }

  publish<K extends BusEventKind>(kind: K, payload: BusEvents[K]): void {
    this.local.deliver(kind, payload, { relayed: false });
    const subject =
      kind === 'change'
        ? `${this.prefix}.change.${(payload as RealtimeEvent).companyUuid}`
        : `${this.prefix}.notify.${(payload as NotificationMessage).recipientType}.${(payload as NotificationMessage).recipientUuid}`;
    if (this.state !== 'up' || !this.nc) {
      this.publishFailed(new Error('NATS is down'));
      return;
    }
    try {
      this.nc.publish(subject, this.encoder.encode(JSON.stringify({ origin: this.instanceId, payload } satisfies Envelope)));
    } catch (err) {
      this.publishFailed(err);
    }
  }

  private publishFailed(err: unknown): void {
    this.metrics.busPublishFailures.inc();
    const now = Date.now();
    if (now - this.lastPublishWarning > 5000) {
      this.lastPublishWarning = now;
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'publish to NATS failed; delivered locally only');
    }
  }

  subscribe<K extends BusEventKind>(kind: K, listener: BusListener<K>): () => void {
    return this.local.add(kind, listener);
  }

  status(): BusStatus {
    return { state: this.state };
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    const nc = this.nc;
    this.nc = null;
    this.state = 'down';
    if (nc) {
      for (const s of this.subs) s.unsubscribe();
      await nc.drain().catch(() => nc.close());
    }
  }
}

function asChange(p: unknown): RealtimeEvent | null {
  const e = p as RealtimeEvent;
  if (!e || typeof e !== 'object' || !UUID.test(String(e.companyUuid)) || !UUID.test(String(e.projectUuid)) || !UUID.test(String(e.entityUuid))) return null;
  if (!['task', 'idea', 'proposal', 'document'].includes(e.entityType) || !['created', 'updated', 'deleted'].includes(e.action)) return null;
  return { companyUuid: e.companyUuid, projectUuid: e.projectUuid, entityType: e.entityType, entityUuid: e.entityUuid, action: e.action };
}

function asNotification(p: unknown): NotificationMessage | null {
  const m = p as NotificationMessage;
  if (!m || typeof m !== 'object' || (m.recipientType !== 'user' && m.recipientType !== 'agent') || !UUID.test(String(m.recipientUuid))) return null;
  if (!m.frame || typeof m.frame !== 'object' || (m.frame.type !== 'new_notification' && m.frame.type !== 'count_update')) return null;
  return { recipientType: m.recipientType, recipientUuid: m.recipientUuid, frame: m.frame };
}
