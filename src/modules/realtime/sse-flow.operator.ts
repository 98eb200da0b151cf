import type { ServerResponse } from 'node:http';
import type { MessageEvent } from '@nestjs/common';
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { resetEvent } from './frames.js';

export interface FlowOptions {
  /** A stream whose socket has not drained for this long stops queuing frames and gets `reset` once it drains. */
  lagMs: number;
  /** Characters of frames skipped for a stream that is not reading, past which it is cut (the slow-client rule). */
  maxSkippedChars: number;
  /** A stream started lagging (it owes a `reset`); `first` for its first time (log it once per stream, count every one). */
  onLag(first: boolean): void;
}

/** The current event-loop turn (advanced by one shared setImmediate), and the responses corked in it. */
let turn = 0;
let turnEnding = false;
const corked: ServerResponse[] = [];
function endTurn(): void {
  turnEnding = false;
  turn++;
  for (const res of corked.splice(0)) res.uncork();
}

/**
 * The transport's part of a stream, between the service's Observable and Nest's `@Sse` pipeline (docs/sse.md):
 *
 * - Bursts leave in one write. Node corks a response for the tick of its first write only; the pipeline writes each
 *   further event of a turn in a tick of its own, so a stream that gets several events in one turn (frames without
 *   `batch=1`, a replay) would leave in one syscall per event. The second event of a turn corks the response (the
 *   first one's write is still corked by http then) and one shared `setImmediate` uncorks every corked response: a
 *   burst leaves in one write. A lone event costs no corking.
 * - A stream that stops reading is bounded. Its events wait in the pipeline while the socket is backed up (and the
 *   pipeline cuts it past `maxPendingDataLength`); once it has been backed up for `lagMs`, further frames are not
 *   queued but skipped, and when the socket drains it gets one `reset` (at the newest skipped position) and continues
 *   live. Skipping more than `maxSkippedChars` cuts it like the pipeline would.
 */
export function sseFlow(res: ServerResponse, options: FlowOptions): MonoTypeOperatorFunction<MessageEvent> {
  return (source) =>
    new Observable<MessageEvent>((out) => {
      let seenTurn = -1;
      let inTurn = 0;
      let backedUpSince = 0;
      let skipped: { id: string; n: number; chars: number } | null = null;
      let lags = 0;
      const onDrain = (): void => {
        backedUpSince = 0;
        if (!skipped) return;
        const { id, n } = skipped;
        skipped = null;
        out.next(resetEvent(id, n));
      };
      const subscription = source.subscribe({
        next: (m) => {
          if (seenTurn !== turn) {
            seenTurn = turn;
            inTurn = 0;
            if (!turnEnding) {
              turnEnding = true;
              setImmediate(endTurn);
            }
          }
          if (++inTurn === 2 && !res.destroyed) {
            res.cork();
            corked.push(res);
          }
          const n = (m as { n?: unknown }).n;
          if (typeof n === 'number' && res.writableNeedDrain) {
            const now = performance.now();
            if (!backedUpSince) {
              backedUpSince = now;
              res.once('drain', onDrain);
            } else if (skipped || now - backedUpSince > options.lagMs) {
              if (!skipped) options.onLag(lags++ === 0);
              skipped = { id: m.id as string, n, chars: (skipped?.chars ?? 0) + String(m.data).length };
              if (skipped.chars > options.maxSkippedChars) res.destroy();
              return;
            }
          }
          out.next(m);
        },
        error: (err: unknown) => out.error(err),
        complete: () => out.complete(),
      });
      return () => {
        subscription.unsubscribe();
        res.off('drain', onDrain);
      };
    });
}
