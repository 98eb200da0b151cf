import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ClientNats, ServerNats, type NatsOptions } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { BehaviorSubject, filter, firstValueFrom, map, merge, timer } from 'rxjs';
import type { MetricsService } from '../metrics/metrics.service.js';
import type { BusEventKind, BusEvents, NotificationMessage, RealtimeEvent } from './events.js';
import type { BusInterest, BusStatus, BusTopic } from './event-bus.port.js';
import { EMITTER_DEFAULTS, EmitterEventBus } from './emitter-event-bus.js';
import { InterestSubscriptions, type InterestKind } from './nats-interest.js';
import { EnvelopeDeserializer, EnvelopeSerializer, outgoingEnvelope, parseEnvelope, type Envelope, type OutgoingEnvelope } from './nats-wire.js';
import { asChange, asNotification, asSessionEnded } from './relayed-payload.js';

type TransportOptions = Required<NatsOptions>['options'];
type Side = 'receive' | 'publish';

const FLUSH_ON_CLOSE_MS = 1000;
/** Longest wait for nats-server to confirm new interest subscriptions before a stream reads its head anyway. */
const SUBSCRIBE_FLUSH_MS = 1000;
/** Default BUS_INTEREST_LINGER_MS. */
export const DEFAULT_INTEREST_LINGER_MS = 60_000;

export interface NatsEventBusOptions {
  /** How long a company's or recipient's subject stays subscribed after its last stream or wait (BUS_INTEREST_LINGER_MS). */
  interestLingerMs?: number;
  emitter?: EventEmitter2;
}

/**
 * Several instances (docs/platform.md §7) over the `@nestjs/microservices` NATS transport: a ClientNats publishes, the
 * transport's ServerNats receives (hosted by the Nest app: `app.connectMicroservice({ strategy: bus.transport })`).
 * Subjects `<prefix>.change.<companyUuid>`, `<prefix>.notify.<recipientType>.<recipientUuid>` and `<prefix>.session`,
 * body `{origin, position, payload}`, never a queue group.
 *
 * Interest, not broadcast (docs/deploy.md "What an instance subscribes to"): the control subject `<prefix>.session`
 * is a handler of the transport, subscribed at its start and always. A company's or recipient's subject is
 * subscribed only while someone here holds an `interest` in it (a stream's sequencer, an inbox wait) and for
 * `interestLingerMs` after the last one goes. ServerNats subscribes its handlers once, when it starts listening, and
 * has no way to unsubscribe one, so these subscriptions are made on the connection the transport already holds
 * (`transport.unwrap()`): one receiving connection per instance, whose reconnects the NATS client handles (it
 * re-sends the subscriptions) and whose status already drives readiness and the resync. Their bodies go through
 * the same `parseEnvelope` as the transport's deserializer.
 *
 * Local listeners get a publish at once; messages that come back with our own origin are dropped; relayed ones are
 * emitted with `relayed: true` only. While the channel is down, publishing skips NATS (logged and counted, nothing
 * buffered: the stream log in PostgreSQL is the record), local delivery goes on, readiness shows the bus down, and
 * every connect — the first one included, for an instance that started while NATS was down — emits
 * `BUS_EVENTS.resync`, on which the streams read what they missed from the log.
 *
 * Start-up never waits on NATS: both sides dial with `waitOnFirstConnect` and unlimited reconnects, nobody awaits
 * the transport's `listen` (which only returns once connected), and up/down comes from the two status streams, where
 * "never connected" is down (the `reconnect` event does not fire for a first connect).
 */
export class NatsEventBus extends EmitterEventBus {
  readonly instanceId = randomUUID();
  /** The receiving side, a Nest microservice transport strategy. */
  readonly transport: ServerNats;
  private readonly client: ClientNats;
  private readonly connected: Record<Side, boolean> = { receive: false, publish: false };
  private readonly state$ = new BehaviorSubject<'up' | 'down'>('down');
  private wasUp = false;
  private closed = false;
  private lastPublishWarning = 0;
  private readonly interests: InterestSubscriptions;
  /** Settles once the interest subscriptions of the latest connect are confirmed by the server. */
  private attached: Promise<void> = Promise.resolve();

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly metrics: MetricsService,
    opts: NatsEventBusOptions = {},
  ) {
    super(opts.emitter ?? new EventEmitter2(EMITTER_DEFAULTS), (err) => logger.error({ err: String(err) }, 'event listener failed'));
    const servers = url.split(',').map((s) => s.trim()).filter(Boolean);
    this.transport = new ServerNats(this.options(servers, 'sub'));
    this.client = new ClientNats(this.options(servers, 'pub'));
    this.interests = new InterestSubscriptions({
      lingerMs: opts.interestLingerMs ?? DEFAULT_INTEREST_LINGER_MS,
      flushTimeoutMs: SUBSCRIBE_FLUSH_MS,
      onMessage: (kind, data) => {
        this.metrics.busMessagesReceived.inc({ kind });
        this.receive(kind, parseEnvelope(data));
      },
      onSubscribed: (kind) => {
        this.metrics.busSubscribes.inc({ kind });
        this.metrics.busSubscriptions.inc({ kind });
      },
      onUnsubscribed: (kind) => {
        this.metrics.busUnsubscribes.inc({ kind });
        this.metrics.busSubscriptions.dec({ kind });
      },
      onError: (err) => this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'NATS interest subscription failed'),
    });
    // The prefix is runtime configuration (BUS_SUBJECT_PREFIX) while `@EventPattern` subjects are fixed when the code
    // loads, so the control handler is registered from configuration here.
    this.transport.addHandler(
      `${prefix}.session`,
      async (env: Envelope | null) => {
        this.metrics.busMessagesReceived.inc({ kind: 'session' });
        this.receive('session', env);
      },
      true,
    );
    this.metrics.busSubscriptions.set({ kind: 'control' }, 1);
    // Kept after close: a first connect that completes just as the bus closes is closed again (onStatus).
    this.transport.status.subscribe((s) => this.onStatus('receive', String(s)));
    this.client.status.subscribe((s) => this.onStatus('publish', String(s)));
  }

  private options(servers: string[], role: 'pub' | 'sub'): TransportOptions {
    return {
      servers,
      name: `svc-${this.instanceId}-${role}`,
      waitOnFirstConnect: true,
      // NATS_URL's order is the operator's preference (the nearest node first): the client would shuffle it otherwise.
      noRandomize: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      reconnectJitter: 200,
      pingInterval: 10_000,
      maxPingOut: 2,
      ...(role === 'pub' ? { serializer: new EnvelopeSerializer() } : { deserializer: new EnvelopeDeserializer() }),
      // With `waitOnFirstConnect` a first connect dials until it succeeds and nothing outside can cancel it; a
      // server-selection handler that throws is the client's documented way to reject it, so closing the bus while
      // NATS is down ends the dial loop instead of leaving it (and the process) running.
      reconnectToServer: () => {
        if (this.closed) throw new Error('event bus closed');
        return null;
      },
    } as TransportOptions;
  }

  /** Connects the publishing side in the background; never throws, never blocks start-up. */
  connect(): void {
    this.client.connect().catch((err: unknown) => {
      if (!this.closed) this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'NATS publisher gave up connecting');
    });
  }

  /** The transport's start settles only once connected, or fails if it gives up (or the bus closed first). */
  transportFailed(err: unknown): void {
    if (!this.closed) this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'NATS subscriber gave up connecting');
  }

  /** Without a Nest app hosting the transport (tests, bench): starts both sides directly, not awaited either. */
  start(): void {
    this.connect();
    void this.transport.listen((err) => {
      if (err) this.transportFailed(err);
    });
  }

  /** Resolves once connected (true) or after `timeoutMs` (false); for start-up and tests. */
  waitUntilUp(timeoutMs: number): Promise<boolean> {
    const up = this.state$.pipe(
      filter((s) => s === 'up'),
      map(() => true),
    );
    return firstValueFrom(merge(up, timer(timeoutMs).pipe(map(() => false))));
  }

  private onStatus(side: Side, status: string): void {
    if (this.closed) {
      // A first connect that completed just as the bus closed: close that side again.
      if (status === 'connected') setImmediate(() => void (side === 'receive' ? this.transport.close() : this.client.close()).catch(() => undefined));
      return;
    }
    this.connected[side] = status === 'connected';
    // The transport's connection exists from its first 'connected' on: the interests wanted so far subscribe on it.
    if (side === 'receive' && status === 'connected') this.attachInterests();
    const next = this.connected.receive && this.connected.publish ? 'up' : 'down';
    if (next === this.state$.value) return;
    this.state$.next(next);
    if (next === 'down') {
      this.logger.warn({ side }, 'NATS connection lost; serving local events only');
      return;
    }
    if (this.wasUp) this.logger.info('NATS connection restored; open streams catch up from the log');
    else this.logger.info({ instanceId: this.instanceId }, 'NATS connected');
    this.wasUp = true;
    // Also on a first connect: an instance that started while NATS was down has missed what others published. Only
    // once the server has the interest subscriptions, so the catch-up's head reads miss nothing after them.
    void this.attached.then(() => {
      if (!this.closed && this.state$.value === 'up') this.resync();
    });
  }

  private attachInterests(): void {
    let nc: NatsConnection;
    try {
      nc = this.transport.unwrap<NatsConnection>();
    } catch {
      return;
    }
    this.attached = this.interests.attach(nc);
  }

  /** The subject of a topic (docs/platform.md §7). */
  private subjectOf(topic: BusTopic): string {
    return topic.kind === 'change' ? `${this.prefix}.change.${topic.companyUuid}` : `${this.prefix}.notify.${topic.recipientType}.${topic.recipientUuid}`;
  }

  interest(topic: BusTopic): BusInterest {
    return this.interests.acquire(this.subjectOf(topic), topic.kind satisfies InterestKind);
  }

  private receive(kind: BusEventKind, env: Envelope | null): void {
    if (!env || env.origin === this.instanceId) return;
    const payload = kind === 'change' ? asChange(env.payload) : kind === 'notification' ? asNotification(env.payload) : asSessionEnded(env.payload);
    // A change or notification frame without a position cannot be sequenced (an instance of an older version).
    if (!payload || (kind !== 'session' && env.position === null)) return;
    this.metrics.eventsRelayed.inc({ kind });
    // Relayed messages are only forwarded to local listeners flagged as relayed: they never cause writes.
    this.deliver(kind, payload as BusEvents[typeof kind], { relayed: true, position: env.position });
  }

  publish<K extends BusEventKind>(kind: K, payload: BusEvents[K], position: string | null, data?: string): void {
    this.deliver(kind, payload, { relayed: false, position, data });
    if (this.state$.value !== 'up') {
      this.publishFailed(new Error('NATS is down'));
      return;
    }
    const subject =
      kind === 'change'
        ? `${this.prefix}.change.${(payload as RealtimeEvent).companyUuid}`
        : kind === 'notification'
          ? `${this.prefix}.notify.${(payload as NotificationMessage).recipientType}.${(payload as NotificationMessage).recipientUuid}`
          : `${this.prefix}.session`;
    this.client.emit<void, OutgoingEnvelope>(subject, outgoingEnvelope(kind, this.instanceId, position, payload, data)).subscribe({ error: (err: unknown) => this.publishFailed(err) });
  }

  private publishFailed(err: unknown): void {
    this.metrics.busPublishFailures.inc();
    const now = Date.now();
    if (now - this.lastPublishWarning > 5000) {
      this.lastPublishWarning = now;
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'publish to NATS failed; delivered locally only');
    }
  }

  status(): BusStatus {
    return { state: this.state$.value };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // ClientNats.close() closes its connection without flushing, which would lose the publishes of the last
    // requests still in the outbound buffer; the transport offers no flush, so unwrap() for that one thing.
    if (this.state$.value === 'up') await flushWithin(this.client.unwrap<NatsConnection>(), FLUSH_ON_CLOSE_MS);
    this.closed = true;
    this.interests.close();
    for (const kind of ['change', 'notification', 'control']) this.metrics.busSubscriptions.set({ kind }, 0);
    this.state$.next('down');
    await Promise.allSettled([this.transport.close(), this.client.close()]);
  }
}

async function flushWithin(nc: NatsConnection, ms: number): Promise<void> {
  let timeout: NodeJS.Timeout | undefined;
  await Promise.race([nc.flush().catch(() => undefined), new Promise<void>((resolve) => (timeout = setTimeout(resolve, ms)))]);
  clearTimeout(timeout);
}
