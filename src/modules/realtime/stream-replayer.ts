import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '../../shared/logging/logger.js';
import { formatPosition, parsePosition } from '../../shared/stream-log/position.js';
import { resetEvent, type PositionedEvent, type ResetEvent } from './frames.js';
import type { KeyState } from './key-state.js';
import { errText, MAX_REPLAY, PositionSequencer } from './position-sequencer.js';

/** Where a resuming (or not yet ready) stream starts. */
export interface Start {
  /** `id:` of the connect block. */
  connectId: string;
  /** Frames to send before the live ones (a `reset` when the position cannot be resumed from). */
  replay: ReadonlyArray<PositionedEvent | ResetEvent>;
  /** Live frames at or below this position are already covered. */
  coveredUpTo: number;
  outcome: 'replayed' | 'reset' | 'fresh';
}

interface ReplayRequest {
  after: number;
  upTo: number;
  resolve: (frames: PositionedEvent[] | null) => void;
}

/**
 * Resume (docs/sse.md): a stream given `Last-Event-ID` first gets every frame after it that its filter admits — from
 * the key's memory when recent enough, else from the log, with one read per key covering every stream that resumes
 * at the same time (a reconnect storm costs a few reads, not one per client) — or one `reset` when the position is
 * malformed, from another epoch, ahead of the head or older than the log.
 */
@Injectable()
export class StreamReplayer {
  /** Replay reads waiting per key (coalesced: one log read per key at a time). */
  private readonly queues = new Map<KeyState, ReplayRequest[]>();

  constructor(
    private readonly sequencer: PositionSequencer,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Where a stream starts once its key is ready. `liveFrom` is the position after which its live frames begin (the
   * first one it buffered, less one, or where the hub starts a stream joining now).
   */
  async startOf(state: KeyState, project: string | null, lastEventId: string | null, liveFrom: () => number): Promise<Start> {
    await state.ready;
    if (!state.isReady) throw new Error('stream key unavailable');
    const epoch = await this.sequencer.epoch();
    const from = liveFrom();
    const head = formatPosition(epoch, from);
    if (lastEventId === null) return { connectId: head, replay: [], coveredUpTo: from, outcome: 'fresh' };
    const reset = (connectId: string): Start => ({ connectId, replay: [resetEvent(head, from)], coveredUpTo: from, outcome: 'reset' });
    const given = parsePosition(lastEventId);
    if (!given || given.epoch !== epoch) return reset(given ? lastEventId : head);
    if (given.n === from) return { connectId: lastEventId, replay: [], coveredUpTo: from, outcome: 'replayed' };
    if (given.n > from) {
      // Ahead of what this instance delivered: frames still in transit to it, or a position that never existed.
      const dbHead = await this.sequencer.head(state);
      if (given.n > dbHead) return reset(lastEventId);
      return { connectId: lastEventId, replay: [], coveredUpTo: given.n, outcome: 'replayed' };
    }
    const frames = await this.replay(state, given.n, from);
    if (!frames) return reset(lastEventId);
    // The replay is per key: a project's stream keeps only that project's frames.
    const admitted = project === null ? frames : frames.filter((f) => f.project === project);
    return { connectId: lastEventId, replay: admitted, coveredUpTo: from, outcome: 'replayed' };
  }

  /**
   * The frames `after < n <= upTo` of a key: from memory when it reaches back that far, else from the log. Null when
   * the log no longer holds them all.
   */
  private replay(state: KeyState, after: number, upTo: number): Promise<PositionedEvent[] | null> {
    const mem = state.fromMemory(after, upTo);
    if (mem) return Promise.resolve(mem);
    if (upTo - after > MAX_REPLAY) return Promise.resolve(null);
    return new Promise((resolve) => {
      let queue = this.queues.get(state);
      const first = !queue;
      if (!queue) this.queues.set(state, (queue = []));
      queue.push({ after, upTo, resolve });
      if (first) void this.run(state);
    });
  }

  private async run(state: KeyState): Promise<void> {
    try {
      // Let the requests of this turn join the first read.
      await new Promise((r) => setImmediate(r));
      for (let batch = this.take(state); batch.length; batch = this.take(state)) {
        // What memory still serves needs no read (an earlier read of this loop may have filled it).
        const rest = batch.filter((q) => {
          const mem = state.fromMemory(q.after, q.upTo);
          if (mem) q.resolve(mem);
          return !mem;
        });
        if (!rest.length) continue;
        const after = Math.min(...rest.map((q) => q.after));
        const upTo = Math.max(...rest.map((q) => q.upTo));
        let frames: PositionedEvent[];
        try {
          frames = await this.sequencer.read(state, after, upTo, 'replay');
        } catch (err) {
          this.logger.warn({ err: errText(err) }, 'stream replay read failed');
          for (const q of rest) q.resolve(null);
          continue;
        }
        state.remember(frames);
        const firstN = frames[0]?.n ?? Infinity;
        for (const q of rest) {
          // The log is contiguous from its first frame: a range is served when it lies inside what was read.
          const len = q.upTo - q.after;
          const start = q.after + 1 - firstN;
          const slice = len <= 0 || start < 0 ? [] : frames.slice(start, start + len);
          q.resolve(len <= 0 || (slice.length === len && slice[0].n === q.after + 1 && slice[len - 1].n === q.upTo) ? slice : null);
        }
      }
    } finally {
      this.queues.delete(state);
    }
  }

  private take(state: KeyState): ReplayRequest[] {
    const q = this.queues.get(state) ?? [];
    this.queues.set(state, []);
    return q;
  }
}
