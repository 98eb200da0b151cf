import type { BusInterest } from './event-bus.port.js';

/** What the interest subscriptions need of a NATS connection (`@nats-io/transport-node`'s NatsConnection has it). */
export interface InterestConnection {
  subscribe(subject: string, opts: { callback: (err: Error | null, msg: { data: Uint8Array }) => void }): { unsubscribe(): void };
  flush(): Promise<void>;
}

export type InterestKind = 'change' | 'notification';

export interface InterestOptions {
  /** How long a subject stays subscribed after its last holder released it (BUS_INTEREST_LINGER_MS). */
  lingerMs: number;
  /** Longest wait for the server to confirm new subscriptions before `ready` settles anyway. */
  flushTimeoutMs: number;
  /** Every message of an interest subscription, as it arrives. */
  onMessage(kind: InterestKind, data: Uint8Array): void;
  /** Subscribed / unsubscribed: metrics. */
  onSubscribed(kind: InterestKind): void;
  onUnsubscribed(kind: InterestKind): void;
  onError(err: unknown): void;
}

interface Entry {
  readonly subject: string;
  readonly kind: InterestKind;
  holders: number;
  sub: { unsubscribe(): void } | null;
  linger: NodeJS.Timeout | null;
  /** Settles once the subscription is active at the server (or could not be confirmed in time). */
  ready: Promise<void>;
}

const SETTLED = Promise.resolve();

/**
 * The subjects of one instance's interests (docs/platform.md §7 "interest, not broadcast"; docs/deploy.md): one NATS
 * subscription per subject while anyone here holds it, reference-counted, kept `lingerMs` after the last holder so a
 * reconnecting stream does not churn. Without a connection yet (NATS down since start-up) the subjects are only
 * recorded and subscribed at the first connect; afterwards the NATS client itself re-subscribes after a reconnect.
 * The subscriptions made in one turn share one flush (one PING round trip) that tells when the server has them.
 */
export class InterestSubscriptions {
  private readonly entries = new Map<string, Entry>();
  private conn: InterestConnection | null = null;
  private nextFlush: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: InterestOptions) {}

  acquire(subject: string, kind: InterestKind): BusInterest {
    let entry = this.entries.get(subject);
    const continuous = entry !== undefined;
    if (entry) {
      entry.holders++;
      if (entry.linger) clearTimeout(entry.linger);
      entry.linger = null;
    } else {
      entry = { subject, kind, holders: 1, sub: null, linger: null, ready: SETTLED };
      this.entries.set(subject, entry);
      this.opts.onSubscribed(kind);
      if (this.conn && !this.closed) {
        this.subscribe(entry, this.conn);
        entry.ready = this.flushSoon();
      }
    }
    let released = false;
    const held = entry;
    return {
      ready: held.ready,
      continuous,
      release: () => {
        if (released) return;
        released = true;
        this.release(held);
      },
    };
  }

  /** Subjects held or lingering now. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The receiving connection is up (the first connect, or a reconnect): subjects recorded without a subscription get
   * one. Resolves once the server has confirmed them (bounded), so a catch-up from the log after it misses nothing.
   */
  attach(conn: InterestConnection): Promise<void> {
    if (this.closed) return SETTLED;
    // The same connection after a reconnect keeps its subscriptions (the client re-sends them); another one has none.
    if (this.conn !== conn) for (const e of this.entries.values()) e.sub = null;
    this.conn = conn;
    for (const e of this.entries.values()) if (!e.sub) this.subscribe(e, conn);
    return this.flushSoon();
  }

  /** The bus closes: timers stop; the subscriptions end with their connection. */
  close(): void {
    this.closed = true;
    for (const e of this.entries.values()) if (e.linger) clearTimeout(e.linger);
    this.entries.clear();
    this.conn = null;
  }

  private release(entry: Entry): void {
    if (--entry.holders > 0 || this.closed) return;
    entry.linger = setTimeout(() => {
      entry.linger = null;
      if (entry.holders > 0 || this.entries.get(entry.subject) !== entry) return;
      this.entries.delete(entry.subject);
      try {
        entry.sub?.unsubscribe();
      } catch (err) {
        this.opts.onError(err);
      }
      this.opts.onUnsubscribed(entry.kind);
    }, this.opts.lingerMs);
    entry.linger.unref();
  }

  private subscribe(entry: Entry, conn: InterestConnection): void {
    const { kind } = entry;
    try {
      // No queue group: every interested instance gets every message of the subject (docs/platform.md §7).
      entry.sub = conn.subscribe(entry.subject, {
        callback: (err, msg) => {
          if (!err) this.opts.onMessage(kind, msg.data);
        },
      });
    } catch (err) {
      // A connection that is closing: the next connect's attach subscribes again.
      this.opts.onError(err);
    }
  }

  /** One flush for the subscriptions of this turn; settles within `flushTimeoutMs` even when the server is away. */
  private flushSoon(): Promise<void> {
    if (this.nextFlush) return this.nextFlush;
    const conn = this.conn;
    if (!conn) return SETTLED;
    this.nextFlush = new Promise<void>((resolve) => {
      queueMicrotask(() => {
        // Subscriptions made from here on go after this PING, so they need a flush of their own.
        this.nextFlush = null;
        const timer = setTimeout(resolve, this.opts.flushTimeoutMs);
        timer.unref();
        conn.flush().then(
          () => (clearTimeout(timer), resolve()),
          () => (clearTimeout(timer), resolve()),
        );
      });
    });
    return this.nextFlush;
  }
}
