import type { MessageEvent } from '@nestjs/common';
import { formatPosition } from '../../shared/stream-log/position.js';

/**
 * What a stream's Observable emits (docs/sse.md). Nest's `@Sse` pipeline writes each `MessageEvent` as one SSE block;
 * the extra fields (`n`, `project`, `frames`) stay on the object for the realtime parts and are never written.
 */

/** A data frame at its position: written as `id:` + `data:`. */
export interface PositionedEvent extends MessageEvent {
  readonly id: string;
  readonly data: string;
  readonly n: number;
  /** The change's project (change stream), null for notification frames. */
  readonly project: string | null;
}

/** Consecutive frames of one stream joined (`batch=1`): `event: batch`, `id:` the last one's, `data:` a JSON array. */
export interface BatchEvent extends MessageEvent {
  readonly type: 'batch';
  readonly id: string;
  readonly data: string;
  readonly n: number;
  readonly frames: readonly PositionedEvent[];
}

/** The stream cannot vouch for what came before `id`: the page reloads its data, the stream goes on live. */
export interface ResetEvent extends MessageEvent {
  readonly type: 'reset';
  readonly id: string;
  readonly data: '{}';
  readonly n: number;
}

// Comment-only events: Nest writes them as `: <comment>` and gives them no `id:`.
export const CONNECTED: MessageEvent = Object.freeze({ comment: 'connected' });
export const HEARTBEAT: MessageEvent = Object.freeze({ comment: 'heartbeat' });

/**
 * Largest `data:` of one batch, in characters: a bigger run of frames becomes several batches. Nest cuts a client
 * whose waiting events pass `maxPendingDataLength` (1 MiB) once its socket backs up, so one event must stay far below.
 */
export const MAX_BATCH_CHARS = 64 * 1024;

export function positioned(epoch: string, n: number, data: string, project: string | null): PositionedEvent {
  return { id: formatPosition(epoch, n), data, n, project };
}

export function resetEvent(id: string, n: number): ResetEvent {
  return { type: 'reset', id, data: '{}', n };
}

export function isFrame(m: MessageEvent): m is PositionedEvent {
  return m.type === undefined && typeof (m as PositionedEvent).n === 'number';
}

export function isBatch(m: MessageEvent): m is BatchEvent {
  return m.type === 'batch';
}

export function isReset(m: MessageEvent): m is ResetEvent {
  return m.type === 'reset';
}

/** The data frames a message carries (one, or a batch's), or null for resets, comments and connect blocks. */
export function framesOf(m: MessageEvent): readonly PositionedEvent[] | null {
  if (isFrame(m)) return [m];
  if (isBatch(m)) return m.frames;
  return null;
}

/**
 * Frames as messages: each on its own, or — for a `batch=1` stream — runs joined into batches of at most
 * MAX_BATCH_CHARS (a run of one stays a plain frame, exactly as without `batch=1`). The data values are joined as
 * they are: each is one line of JSON, so the array is one line too.
 */
export function asMessages(frames: readonly PositionedEvent[], batch: boolean): MessageEvent[] {
  if (!batch || frames.length <= 1) return frames.slice();
  const out: MessageEvent[] = [];
  let start = 0;
  let chars = 2;
  for (let i = 0; i < frames.length; i++) {
    const size = frames[i].data.length + 1;
    if (i > start && chars + size > MAX_BATCH_CHARS) {
      out.push(joined(frames, start, i));
      start = i;
      chars = 2;
    }
    chars += size;
  }
  out.push(joined(frames, start, frames.length));
  return out;
}

function joined(frames: readonly PositionedEvent[], from: number, to: number): PositionedEvent | BatchEvent {
  if (to - from === 1) return frames[from];
  const run = frames.slice(from, to);
  let data = '[';
  for (let i = 0; i < run.length; i++) data += (i ? ',' : '') + run[i].data;
  const last = run[run.length - 1];
  const batch: BatchEvent = { type: 'batch', id: last.id, data: data + ']', n: last.n, frames: run };
  return batch;
}
