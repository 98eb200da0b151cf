import { Ajv } from 'ajv';
import { OUTPUT } from './output-schemas.js';

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; required?: string[]; [k: string]: unknown };

/** Paths deeper than tools.md §1.5 allows: a root's keys, and one level inside a list. */
function tooDeep(schema: Schema): string[] {
  const out: string[] = [];
  for (const [key, s] of Object.entries(schema.properties ?? {})) {
    if (s.properties) out.push(key);
    const item = s.items;
    if (!item) continue;
    for (const [k, v] of Object.entries(item.properties ?? {})) if (Object.keys(v).some((x) => x !== 'type')) out.push(`${key}[].${k}`);
    if (item.required) out.push(`${key}[] required`);
  }
  return out;
}

describe('OUTPUT schemas (tools.md §1.1, §1.5)', () => {
  const ajv = new Ajv({ allErrors: true });

  it.each(Object.entries(OUTPUT))('%s: an open object, shallow, valid for Ajv', (_name, schema: Schema) => {
    expect(schema.type).toBe('object');
    expect(JSON.stringify(schema)).not.toContain('additionalProperties');
    expect(tooDeep(schema)).toEqual([]);
    expect(schema.required).not.toContain('truncated');
    expect(schema.required).not.toContain('warnings');
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('accepts a truncated page, nulls where a field may be null, and refuses a wrong type', () => {
    const validate = ajv.compile(OUTPUT.mentionables);
    const row = { type: 'agent', uuid: 'u', name: 'A', email: null };
    expect(validate({ mentionables: [row], page: 1, pageSize: 20, total: 3, truncated: true })).toBe(true);
    expect(validate({ mentionables: [row], page: 1, pageSize: 20 })).toBe(false);
    expect(validate({ mentionables: [{ ...row, email: 5 }], page: 1, pageSize: 20, total: 3 })).toBe(false);
    const tracker = ajv.compile(OUTPUT.myAssignments);
    expect(tracker({ ideaTracker: {}, taskTracker: {}, warnings: ['x'] })).toBe(true);
  });
});
