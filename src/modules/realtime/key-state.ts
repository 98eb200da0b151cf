import type { BusInterest } from '../../shared/event-bus/event-bus.port.js';
import type { StreamName } from '../../shared/stream-log/position.js';
import type { PositionedEvent } from './frames.js';

/** How long an out-of-order frame waits for the missing positions before the log is read (docs/sse.md). */
export const GAP_WAIT_MS = 50;
/** Wait before a repair that failed (database unreachable) is tried again. */
export const REPAIR_RETRY_MS = 1000;
/** Frames kept in memory per key (contiguous, ending at the delivered position), so most resumes read no log. */
export const RECENT_MAX = 4096;

/** Where a key reads what it missed: the stream log, scoped to the key by the sequencer. */
export interface KeyLogReader {
  /** At most `limit` frames `after < n <= upTo`, oldest first. */
  read(after: number, upTo: number): Promise<PositionedEvent[]>;
  /** The key's current head in the log. */
  head(): Promise<number>;
  readonly limit: number;
}

/** What a key reports, in order. */
export interface KeyListener {
  /** The next frame, in position order, exactly once. */
  frame(frame: PositionedEvent): void;
  /** Positions up to `head` could not all be read (pruned): the key's streams get `reset`. */
  lost(head: number, detail: { delivered: number; reason: string }): void;
  /** A repair delivered `frames` frames from the log. */
  repaired(frames: number): void;
  /** A repair failed (the database did not answer); it is retried. */
  repairFailed(err: unknown): void;
}

/**
 * The sequencer of one position key (a company's change stream, or one recipient's notification frames) on this
 * instance, alive while the key has streams here. Local and relayed frames pass through `accept`: delivered in
 * position order exactly once; one that arrives ahead of a missing position waits `GAP_WAIT_MS`, then the log fills
 * the hole (`repair`). Until its head is known (`ready`) everything waits.
 */
export class KeyState {
  /** Last position delivered to the feeds; -1 until the head is known. */
  delivered = -1;
  /** Streams on this key. */
  connections = 0;
  /** The last frames delivered (contiguous, ending at `delivered`), at most RECENT_MAX. */
  recent: PositionedEvent[] = [];
  lingerTimer: NodeJS.Timeout | null = null;
  /** This instance's interest in the key's bus subject, held while the key has streams (the sequencer manages it). */
  interest: BusInterest | null = null;
  readonly ready: Promise<void>;
  private readonly pending = new Map<number, PositionedEvent>();
  private gapTimer: NodeJS.Timeout | null = null;
  private repairing = false;
  private repairAgain = false;
  private markReady!: () => void;
  private dropped = false;

  constructor(
    readonly stream: StreamName,
    readonly key: string,
    private readonly log: KeyLogReader,
    private readonly listener: KeyListener,
  ) {
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
  }

  get isReady(): boolean {
    return this.delivered >= 0;
  }

  /** The head became known: frames at or below it are dropped, the rest delivered in order. */
  start(head: number): void {
    if (this.delivered >= 0 || this.dropped) return;
    this.delivered = head;
    for (const n of this.pending.keys()) if (n <= head) this.pending.delete(n);
    this.markReady();
    this.drain();
  }

  accept(frame: PositionedEvent): 'delivered' | 'duplicate' | 'waiting' {
    if (this.dropped) return 'duplicate';
    if (this.delivered >= 0 && frame.n <= this.delivered) return 'duplicate';
    if (this.pending.has(frame.n)) return 'duplicate';
    this.pending.set(frame.n, frame);
    if (this.delivered < 0) return 'waiting';
    return this.drain() ? 'delivered' : 'waiting';
  }

  /** Reads the log from the delivered position up to `head` (a reconnect, a probe) and delivers what was missed. */
  catchUp(head: number): void {
    if (this.delivered >= 0 && head > this.delivered) void this.repair(head);
  }

  /** Stops timers; the key has no streams left. */
  drop(): void {
    this.dropped = true;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    if (this.lingerTimer) clearTimeout(this.lingerTimer);
    this.gapTimer = this.lingerTimer = null;
    this.pending.clear();
    this.recent = [];
    this.markReady();
  }

  /** The frames `after < n <= upTo` from memory, or null when memory does not reach back that far. */
  fromMemory(after: number, upTo: number): PositionedEvent[] | null {
    if (after >= upTo) return [];
    const first = this.recent[0];
    if (!first || first.n > after + 1 || this.recent[this.recent.length - 1].n < upTo) return null;
    const start = after + 1 - first.n;
    return this.recent.slice(start, start + (upTo - after));
  }

  /**
   * Frames read from the log for a replay, kept in front of `recent` when they reach up to it (or, with nothing in
   * memory yet — a restarted instance — up to the delivered position), within RECENT_MAX: the next resumes of the
   * same range are served from memory.
   */
  remember(frames: readonly PositionedEvent[]): void {
    const boundary = this.recent.length ? this.recent[0].n : this.delivered + 1;
    let end = frames.length;
    while (end > 0 && frames[end - 1].n >= boundary) end--;
    if (end === 0 || frames[end - 1].n !== boundary - 1) return;
    const room = RECENT_MAX - this.recent.length;
    if (room <= 0) return;
    this.recent = [...frames.slice(Math.max(0, end - room), end), ...this.recent];
  }

  /** Positions up to `head` are gone from the log: memory is no longer contiguous, the streams get `reset`. */
  private lost(head: number, reason: string): void {
    const delivered = this.delivered;
    this.recent = [];
    this.delivered = head;
    this.listener.lost(head, { delivered, reason });
  }

  private deliver(frame: PositionedEvent): void {
    this.delivered = frame.n;
    this.recent.push(frame);
    if (this.recent.length > RECENT_MAX) this.recent.splice(0, this.recent.length - RECENT_MAX);
    this.listener.frame(frame);
  }

  /** Delivers every pending frame that is next in line; a remaining hole starts the gap timer. True if any. */
  private drain(): boolean {
    let any = false;
    for (let next = this.pending.get(this.delivered + 1); next; next = this.pending.get(this.delivered + 1)) {
      this.pending.delete(next.n);
      this.deliver(next);
      any = true;
    }
    if (this.pending.size === 0) {
      if (this.gapTimer) clearTimeout(this.gapTimer);
      this.gapTimer = null;
    } else if (!this.gapTimer && !this.repairing) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = null;
        void this.repair(Math.max(...this.pending.keys()));
      }, GAP_WAIT_MS);
      this.gapTimer.unref();
    }
    return any;
  }

  /**
   * Fills `delivered < n <= upTo` from the log. Frames that arrive meanwhile wait in `pending`. A log that no longer
   * reaches back to `delivered + 1` (pruned while this instance was cut off) resets the key's streams at what it
   * has; waiting frames above the log's head never committed anywhere (a forged or foreign message) and are dropped.
   */
  private async repair(upTo: number): Promise<void> {
    if (this.repairing) {
      this.repairAgain = true;
      return;
    }
    this.repairing = true;
    try {
      let target = upTo;
      for (let round = 0; ; round++) {
        let got = 0;
        while (target > this.delivered) {
          const frames = await this.log.read(this.delivered, target);
          if (this.dropped) return;
          for (const f of frames) {
            if (f.n <= this.delivered) continue;
            // The log lost the positions in between: whoever was waiting for them must refresh.
            if (f.n !== this.delivered + 1) this.lost(f.n - 1, 'log starts above the delivered position');
            this.pending.delete(f.n);
            this.deliver(f);
            got++;
          }
          if (frames.length < this.log.limit) break;
        }
        if (got) this.listener.repaired(got);
        for (const n of [...this.pending.keys()]) if (n <= this.delivered) this.pending.delete(n);
        const stuck = this.pending.size > 0 && !this.pending.has(this.delivered + 1);
        if ((target > this.delivered || stuck) && round < 3) {
          // The log lacks positions someone announced: read the head. Waiting frames above it never committed (a
          // forged or foreign message); below it, read again up to it (rows committed since the last read, or the
          // bottom was pruned — then the read starts higher and resets); still nothing after that: lost.
          const head = await this.log.head();
          if (this.dropped) return;
          for (const n of [...this.pending.keys()]) if (n > head) this.pending.delete(n);
          if (head > this.delivered) {
            target = head;
            if (round < 2) continue;
            this.lost(head, 'log has nothing up to the head');
          }
        }
        this.drain();
        if (!this.repairAgain) break;
        this.repairAgain = false;
        target = this.pending.size ? Math.max(...this.pending.keys()) : this.delivered;
        round = -1;
      }
    } catch (err) {
      this.listener.repairFailed(err);
      // The database is unreachable: try again in a while (frames keep waiting in order meanwhile).
      if (!this.dropped && !this.gapTimer) {
        this.gapTimer = setTimeout(() => {
          this.gapTimer = null;
          void this.repair(Math.max(upTo, ...this.pending.keys()));
        }, REPAIR_RETRY_MS);
        this.gapTimer.unref();
      }
    } finally {
      this.repairing = false;
      if (!this.dropped && this.pending.size && !this.gapTimer) this.drain();
    }
  }
}
