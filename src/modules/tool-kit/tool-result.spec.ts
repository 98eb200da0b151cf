import { RESULT_CAP_BYTES, renderResult, toCallResult } from './tool-result.js';

describe('renderResult (64 KiB cap)', () => {
  it('leaves small results alone without a truncated marker', () => {
    const r = { tasks: [{ a: 1 }], page: 1, pageSize: 20, total: 1 };
    expect(JSON.parse(renderResult(r))).toEqual(r);
  });

  it('drops rows from the tail of a collection until it fits and keeps total', () => {
    const tasks = Array.from({ length: 500 }, (_, i) => ({ i, pad: 'x'.repeat(300) }));
    const text = renderResult({ tasks, page: 1, pageSize: 500, total: 9999 });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(RESULT_CAP_BYTES);
    const out = JSON.parse(text);
    expect(out.truncated).toBe(true);
    expect(out.total).toBe(9999);
    expect(out.tasks[0].i).toBe(0);
    expect(out.tasks.length).toBeLessThan(500);
    // Maximal: one more row would not fit.
    const one = JSON.stringify({ tasks: tasks.slice(0, out.tasks.length + 1), page: 1, pageSize: 500, total: 9999, truncated: true });
    expect(Buffer.byteLength(one)).toBeGreaterThan(RESULT_CAP_BYTES);
  });

  it('cuts task tracker rows before idea tracker rows and removes emptied projects', () => {
    const row = (n: number, pad = 400) => ({ n, pad: 'y'.repeat(pad) });
    // Ideas take ~55 KB, so only part of the first project's tasks can stay.
    const ideaTracker = { p1: { name: 'P1', ideas: Array.from({ length: 60 }, (_, i) => row(i, 900)) } };
    const taskTracker = {
      p1: { name: 'P1', tasks: Array.from({ length: 60 }, (_, i) => row(i)) },
      p2: { name: 'P2', tasks: Array.from({ length: 60 }, (_, i) => row(i)) },
    };
    const out = JSON.parse(renderResult({ ideaTracker, taskTracker }));
    expect(out.truncated).toBe(true);
    expect(out.ideaTracker.p1.ideas).toHaveLength(60);
    expect(out.taskTracker.p2).toBeUndefined();
    expect(out.taskTracker.p1.tasks.length).toBeGreaterThan(0);
    expect(out.taskTracker.p1.tasks.length).toBeLessThan(60);
  });

  it('never cuts a single record', () => {
    const record = { uuid: 'x', acceptanceCriteriaItems: [{ d: 'z'.repeat(RESULT_CAP_BYTES * 2) }] };
    expect(renderResult(record)).toBe(JSON.stringify(record));
  });

  it('gives structuredContent that serializes to exactly the text, whatever the record holds', () => {
    class Row {
      constructor(readonly a = 1) {}
    }
    const records: unknown[] = [
      { uuid: 'x', n: 2.5, neg: -0, ok: true, none: null, list: [1, 'two', { three: [] }], text: 'é ✓ "q"\n' },
      { at: new Date('2026-01-02T03:04:05.678Z') },
      { gone: undefined, kept: 1 },
      { row: new Row() },
      { items: Array.from({ length: 400 }, (_, i) => ({ i, pad: 'p'.repeat(400) })), page: 1, pageSize: 400, total: 400 },
    ];
    for (const record of records) {
      const result = toCallResult(record, true);
      expect(JSON.stringify(result.structuredContent)).toBe(result.content[0].text);
      expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
    }
    // Plain data is handed over as it is, not parsed back.
    const plain = { uuid: 'x', list: [{ a: 1 }] };
    expect(toCallResult(plain, true).structuredContent).toBe(plain);
    expect(toCallResult(plain).structuredContent).toBeUndefined();
  });
});
