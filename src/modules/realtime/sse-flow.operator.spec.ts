import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { MessageEvent } from '@nestjs/common';
import { Subject } from 'rxjs';
import { positioned } from './frames.js';
import { sseFlow } from './sse-flow.operator.js';

/** What the operator touches on a response: corking, backpressure, drain, destroy. */
class FakeResponse extends EventEmitter {
  corked = 0;
  uncorks = 0;
  writableNeedDrain = false;
  destroyed = false;
  cork(): void {
    this.corked++;
  }
  uncork(): void {
    this.uncorks++;
    this.corked--;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

const turn = () => new Promise((r) => setImmediate(r));

function setup(lagMs = 50, maxSkippedChars = 1000) {
  const res = new FakeResponse();
  const input = new Subject<MessageEvent>();
  const got: MessageEvent[] = [];
  const lags: boolean[] = [];
  const sub = input.pipe(sseFlow(res as unknown as ServerResponse, { lagMs, maxSkippedChars, onLag: (first) => lags.push(first) })).subscribe((m) => got.push(m));
  let n = 0;
  const frame = (data = '{"x":1}') => positioned('ep', ++n, data, null);
  return { res, input, got, lags, sub, frame };
}

describe('sseFlow (the stream transport between the service and Nest’s @Sse pipeline)', () => {
  it('corks a response from the second event of a turn and uncorks it once at the turn’s end; a lone event is not corked', async () => {
    const { res, input, frame, got } = setup();
    input.next(frame());
    expect(res.corked).toBe(0);
    await turn();
    for (let i = 0; i < 5; i++) input.next(frame());
    expect(res.corked).toBe(1);
    await turn();
    expect(res.corked).toBe(0);
    expect(res.uncorks).toBe(1);
    expect(got.map((m) => m.id)).toEqual(['ep-1', 'ep-2', 'ep-3', 'ep-4', 'ep-5', 'ep-6']);
  });

  it('a stream backed up longer than lagMs stops queuing frames; once it drains it gets one reset at the newest skipped position, then live', async () => {
    const { res, input, frame, got, lags } = setup(30);
    input.next(frame());
    res.writableNeedDrain = true;
    input.next(frame()); // backed up: still queued in the pipeline (within the lag)
    await new Promise((r) => setTimeout(r, 40));
    input.next(frame()); // lagging: skipped (the reset it now owes is counted at once)
    expect(lags).toEqual([true]);
    input.next(frame()); // skipped
    input.next({ comment: 'heartbeat' }); // comments pass (they cost nothing to skip)
    expect(got.map((m) => m.id ?? m.comment)).toEqual(['ep-1', 'ep-2', 'heartbeat']);
    res.writableNeedDrain = false;
    res.emit('drain');
    expect(got.at(-1)).toEqual({ type: 'reset', id: 'ep-4', data: '{}', n: 4 });
    input.next(frame());
    expect(got.at(-1)?.id).toBe('ep-5');
    expect(lags).toEqual([true]);
    // A second lag of the same stream is counted, not logged again.
    res.writableNeedDrain = true;
    input.next(frame());
    await new Promise((r) => setTimeout(r, 40));
    input.next(frame());
    res.writableNeedDrain = false;
    res.emit('drain');
    expect(got.at(-1)).toEqual({ type: 'reset', id: 'ep-7', data: '{}', n: 7 });
    expect(lags).toEqual([true, false]);
  });

  it('a stream that drains within lagMs gets everything, no reset', async () => {
    const { res, input, frame, got, lags } = setup(1000);
    res.writableNeedDrain = true;
    for (let i = 0; i < 5; i++) input.next(frame());
    res.writableNeedDrain = false;
    res.emit('drain');
    input.next(frame());
    expect(got.map((m) => m.id)).toEqual(['ep-1', 'ep-2', 'ep-3', 'ep-4', 'ep-5', 'ep-6']);
    expect(lags).toEqual([]);
  });

  it('cuts a lagging stream once the frames it skipped pass maxSkippedChars (the slow-client rule)', async () => {
    const { res, input, frame } = setup(10, 100);
    res.writableNeedDrain = true;
    input.next(frame());
    await new Promise((r) => setTimeout(r, 20));
    input.next(frame('x'.repeat(60)));
    expect(res.destroyed).toBe(false);
    input.next(frame('x'.repeat(60)));
    expect(res.destroyed).toBe(true);
  });

  it('removes its drain listener when the stream ends', () => {
    const { res, input, frame, sub } = setup();
    res.writableNeedDrain = true;
    input.next(frame());
    expect(res.listenerCount('drain')).toBe(1);
    sub.unsubscribe();
    expect(res.listenerCount('drain')).toBe(0);
  });
});
