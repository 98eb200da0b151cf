import { Inject, Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import type { Logger } from 'pino';
import { AppConfig } from '../../config/config.js';
import { EventBus, type BusInterest, type BusTopic } from '../../shared/event-bus/event-bus.port.js';
import { BUS_EVENTS, changeJson, type DeliveryMeta, type NotificationMessage, type RealtimeEvent } from '../../shared/event-bus/events.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { formatPosition, parsePosition, recipientKey, type StreamName } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { FeedHub, type StreamKind } from './feed-hub.js';
import { positioned, type PositionedEvent } from './frames.js';
import { KeyState, type KeyListener, type KeyLogReader } from './key-state.js';

/** Most frames one log read returns; a resume further behind than this answers `reset`. */
export const MAX_REPLAY = 20_000;
/**
 * A key without streams keeps its sequencer (and recent frames) this long, so a reconnect resumes from memory — never
 * longer than the bus keeps the key's subscription (BUS_INTEREST_LINGER_MS), so a live sequencer never misses frames.
 */
export const LINGER_MS = 15_000;

export const kindOf = (stream: StreamName): StreamKind => (stream === 'c' ? 'changes' : 'notifications');
export const keyIdOf = (state: KeyState): string => `${state.stream}:${state.key}`;

/** The bus topic of a key: a company's change events, or one recipient's notification frames. */
export function topicOf(stream: StreamName, key: string): BusTopic {
  if (stream === 'c') return { kind: 'change', companyUuid: key };
  const [recipientType, recipientUuid] = key.split(':') as ['user' | 'agent', string];
  return { kind: 'notification', recipientType, recipientUuid };
}

/**
 * Positions (docs/sse.md): every data frame carries `id: <epoch>-<n>`, the per-company (changes) or per-recipient
 * (notifications) position its transaction took. Per key with streams on this instance one `KeyState` orders local
 * and relayed frames, drops duplicates and repairs holes from the log; what it delivers goes to the feed hub. The
 * log is read through the stream log it is given: the heads of keys opened in one turn in one query, a key's missing
 * range on a repair, every open key's head after the shared channel comes back and at each heartbeat.
 *
 * Interest (docs/deploy.md "What an instance subscribes to"): a key holds the bus's interest in its subject while it
 * has streams, so the instance receives only the companies and recipients it serves. A new key reads its head only
 * once its subscription is active at the server: what committed before is below the head (and in the log), what
 * commits after arrives on the bus, and a relayed frame at or below the head is dropped as a duplicate — a late
 * subscription loses nothing.
 */
@Injectable()
export class PositionSequencer {
  private readonly keys = new Map<string, KeyState>();
  /** Heads requested in this turn, read together. */
  private headBatch: KeyState[] = [];
  private epochValue: string | null = null;
  private closed = false;
  private readonly lingerMs: number;

  constructor(
    private readonly bus: EventBus,
    config: AppConfig,
    private readonly log: StreamLog,
    private readonly hub: FeedHub,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.lingerMs = Math.min(LINGER_MS, config.busInterestLingerMs);
  }

  @OnEvent(BUS_EVENTS.change)
  onChange(e: RealtimeEvent, meta: DeliveryMeta): void {
    const state = this.keys.get(`c:${e.companyUuid}`);
    if (!state || !meta?.position) return;
    // The frame as the writing transaction logged it when it came from this instance, else serialized here, once.
    this.accept(state, meta.position, meta.data ?? changeJson(e), e.projectUuid);
  }

  @OnEvent(BUS_EVENTS.notification)
  onNotification(m: NotificationMessage, meta: DeliveryMeta): void {
    const state = this.keys.get(`n:${recipientKey(m.recipientType, m.recipientUuid)}`);
    if (!state || !meta?.position) return;
    this.accept(state, meta.position, meta.data ?? JSON.stringify(m.frame), null);
  }

  /** The shared channel is (re)connected: every open key reads what it may have missed from the log. */
  @OnEvent(BUS_EVENTS.resync)
  onResync(): void {
    void this.probeHeads().catch((err: unknown) => this.logger.warn({ err: errText(err) }, 'stream catch-up after reconnect failed'));
  }

  /** The log's epoch (read once). */
  async epoch(): Promise<string> {
    return (this.epochValue ??= await this.log.epoch());
  }

  get knownEpoch(): string | null {
    return this.epochValue;
  }

  /** The sequencer of a key, for one more stream; its head is read (batched) when it is new. */
  acquire(stream: StreamName, key: string): KeyState {
    const id = `${stream}:${key}`;
    let state = this.keys.get(id);
    let interest: BusInterest | null = null;
    if (state && !state.interest) {
      // A lingering key gave its interest back with its last stream. If the subject stayed subscribed meanwhile the
      // key missed nothing; otherwise it starts afresh from the log, like a new one.
      interest = this.bus.interest(topicOf(stream, key));
      if (interest.continuous) {
        state.interest = interest;
        interest = null;
      } else {
        this.forget(state);
        state = undefined;
      }
    }
    if (!state) {
      state = new KeyState(stream, key, this.reader(stream, key), this.listener(stream, key));
      state.interest = interest ?? this.bus.interest(topicOf(stream, key));
      this.keys.set(id, state);
      this.requestHead(state);
    }
    state.connections++;
    if (state.lingerTimer) clearTimeout(state.lingerTimer);
    state.lingerTimer = null;
    return state;
  }

  /** One stream of the key fewer: without streams it lingers (a reconnect resumes from memory), then goes. */
  release(state: KeyState): void {
    if (--state.connections > 0) return;
    // The bus keeps the subject subscribed for its own linger, at least as long as the key lingers here.
    state.interest?.release();
    state.interest = null;
    const drop = (): void => {
      if (state.connections > 0 || this.keys.get(keyIdOf(state)) !== state) return;
      this.keys.delete(keyIdOf(state));
      state.drop();
    };
    if (this.closed) return drop();
    state.lingerTimer = setTimeout(drop, this.lingerMs);
    state.lingerTimer.unref();
  }

  /** Sequencers alive (keys with streams, or lingering after their last one). */
  get size(): number {
    return this.keys.size;
  }

  /** Compares every open key with the log's head and catches up (heartbeat, reconnect). */
  async probeHeads(): Promise<void> {
    await this.withHeads(
      [...this.keys.values()].filter((s) => s.isReady),
      (s, head) => s.catchUp(head),
    );
  }

  /** The key's head in the log now (a resume ahead of what this instance delivered). */
  async head(state: Pick<KeyState, 'stream' | 'key'>): Promise<number> {
    this.metrics.streamLogReads.inc({ purpose: 'head' });
    return (await this.log.heads(state.stream, [state.key])).get(state.key) ?? 0;
  }

  /** Frames `after < n <= upTo` of a key from the log, at most `limit` (a replay: MAX_REPLAY + 1, to see overflow). */
  async read(state: Pick<KeyState, 'stream' | 'key'>, after: number, upTo: number, purpose: 'replay' | 'repair', limit = MAX_REPLAY + 1): Promise<PositionedEvent[]> {
    this.metrics.streamLogReads.inc({ purpose });
    const rows = await this.log.read(state.stream, state.key, after, upTo, limit);
    const epoch = await this.epoch();
    return rows.map((r) => positioned(epoch, r.n, r.payload, r.projectUuid));
  }

  /** Shutdown: keys go as their streams end, without lingering. */
  close(): void {
    this.closed = true;
  }

  private reader(stream: StreamName, key: string): KeyLogReader {
    const at = { stream, key };
    return {
      limit: MAX_REPLAY,
      read: (after, upTo) => this.read(at, after, upTo, 'repair', MAX_REPLAY),
      head: () => this.head(at),
    };
  }

  private listener(stream: StreamName, key: string): KeyListener {
    const kind = kindOf(stream);
    const keyId = `${stream}:${key}`;
    return {
      frame: (frame) => this.hub.publish(keyId, frame),
      lost: (head, detail) => {
        this.logger.warn({ stream: kind, head, delivered: detail.delivered, reason: detail.reason }, 'stream positions lost from the log; streams get reset');
        const streams = this.hub.reset(keyId, formatPosition(this.epochValue ?? '0', head), head);
        this.metrics.streamResets.inc({ stream: kind });
        if (streams) this.metrics.sseResets.inc({ stream: kind, reason: 'log' }, streams);
      },
      repaired: (frames) => {
        this.metrics.streamGapsRepaired.inc({ stream: kind });
        this.metrics.streamRepairedFrames.inc({ stream: kind }, frames);
      },
      repairFailed: (err) => this.logger.warn({ stream: kind, err: errText(err) }, 'stream repair from the log failed; retrying'),
    };
  }

  /** Heads of keys created in one turn are read in one query. */
  private requestHead(state: KeyState): void {
    if (this.headBatch.push(state) > 1) return;
    setImmediate(() => {
      const batch = this.headBatch;
      this.headBatch = [];
      void this.readHeads(batch);
    });
  }

  private async readHeads(states: KeyState[]): Promise<void> {
    try {
      // Subscribed at the server before the heads are read (BusInterest.ready never rejects, and is bounded).
      await Promise.all(states.map((s) => s.interest?.ready));
      await this.epoch();
      await this.withHeads(states, (s, head) => s.start(head));
    } catch (err) {
      // Connections waiting on these keys end (their clients reconnect); a key still wanted tries again later.
      this.logger.warn({ err: errText(err) }, 'stream head read failed');
      for (const s of states) if (!s.isReady) this.forget(s);
    }
  }

  /** A key whose head cannot be read is forgotten: its waiting connections end, the next one retries. */
  private forget(state: KeyState): void {
    if (this.keys.get(keyIdOf(state)) === state) this.keys.delete(keyIdOf(state));
    state.drop();
  }

  /** The log's heads of these keys, one query per stream, each handed to `apply`. */
  private async withHeads(states: readonly KeyState[], apply: (state: KeyState, head: number) => void): Promise<void> {
    for (const stream of ['c', 'n'] as const) {
      const of = states.filter((s) => s.stream === stream);
      if (!of.length) continue;
      this.metrics.streamLogReads.inc({ purpose: 'head' });
      const heads = await this.log.heads(stream, of.map((s) => s.key));
      for (const s of of) apply(s, heads.get(s.key) ?? 0);
    }
  }

  private accept(state: KeyState, position: string, data: string, project: string | null): void {
    const p = parsePosition(position);
    if (!p) return;
    // A frame of another log (an instance on another database under the same subject prefix) is not ours.
    if (this.epochValue !== null && p.epoch !== this.epochValue) return;
    const outcome = state.accept(positioned(p.epoch, p.n, data, project));
    if (outcome === 'duplicate') this.metrics.streamDuplicates.inc({ stream: kindOf(state.stream) });
  }
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
