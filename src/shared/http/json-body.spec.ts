import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-body.middleware.js';

const nest = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

describe('nestedDeeperThan', () => {
  it('counts array and object levels; scalars have depth 0', () => {
    expect(nestedDeeperThan('x', 0)).toBe(false);
    expect(nestedDeeperThan(null, 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: 2 }] }, 2)).toBe(true);
    expect(nestedDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
  });

  it('accepts exactly MAX_JSON_DEPTH levels and refuses one more', () => {
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });

  it('handles a body nested 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), MAX_JSON_DEPTH)).toBe(true);
  });
});
