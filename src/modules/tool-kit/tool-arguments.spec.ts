import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumListField, IntegerField, ListField, TextField, TextListField, UuidArgs, UuidField, UuidListField } from '../../shared/validation/fields.js';
import { NoArgsDto } from '../../shared/validation/no-args.dto.js';
import { RequiresField } from '../../shared/validation/requires-field.js';
import { restFields } from '../../../test/utils/dto-check.js';
import { ToolArguments } from './tool-arguments.js';

class ItemDto {
  @TextField({ minLength: 1, maxLength: 5, description: 'Name' }) name: string;
  @BooleanField({ optional: true, description: 'Flag' }) flag?: boolean;
}

class BodyDto {
  @TextField({ minLength: 1, maxLength: 10, description: 'Title' }) title: string;
  @TextField({ optional: true, nullable: true, limits: 'service', maxLength: 3, description: 'Note' }) note?: string | null;
  @IntegerField({ optional: true, minimum: 1, maximum: 100, description: 'Size' }) size?: number;
  @IntegerField({ optional: true, minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Page, from 1' }) page?: number;
  @TextField({ optional: true, minLength: 1, maxLength: 200, description: 'Label, 1-200 characters' }) label?: string;
  @TextField({ optional: true, minLength: 1, maxLength: 2000, description: 'Memo, at most 2,000 characters' }) memo?: string;
  @TextField({ optional: true, maxLength: 100_000, description: 'Body' }) body?: string;
  @ListField(ItemDto, { optional: true, maxItems: 2, description: 'Items' }) items?: ItemDto[];
  @UuidListField({ optional: true, description: 'Links' }) links?: string[];
  @TextListField({ optional: true, minLength: 1, maxLength: 4, description: 'Tags' }) tags?: string[];
  @EnumListField(['a', 'b'], { optional: true, description: 'Kinds' }) kinds?: string[];
}

class TargetDto {
  @RequiresField('kind')
  @UuidField({ optional: true, description: 'Target' })
  target?: string;

  @TextField({ optional: true, description: 'Kind' }) kind?: string;
}

class ArgsDto extends IntersectionType(UuidArgs('thingUuid', 'The thing'), BodyDto, TargetDto) {}

const UUID = '0190c3b5-7d2e-7a1b-9c3d-4e5f6a7b8c9d';
const args = new ToolArguments(ArgsDto);
const issues = (raw: unknown) => {
  const r = args.parse(raw);
  return r.ok ? [] : r.issues;
};

describe('ToolArguments', () => {
  it('publishes the JSON Schema of the DTO: the path id first, closed objects, nullable as a type list, uuids by format', () => {
    const s = args.schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(Object.keys(s.properties)).toEqual(['thingUuid', 'title', 'note', 'size', 'page', 'label', 'memo', 'body', 'items', 'links', 'tags', 'kinds', 'target', 'kind']);
    expect(s.required).toEqual(['thingUuid', 'title']);
    expect(s).toMatchObject({ type: 'object', additionalProperties: false });
    expect(s.properties.thingUuid).toEqual({ description: 'The thing', type: 'string', format: 'uuid' });
    expect(s.properties.note).toEqual({ description: 'Note', type: ['string', 'null'], maxLength: 3 });
    expect(s.properties.size).toEqual({ description: 'Size', type: 'integer', minimum: 1, maximum: 100 });
    // Bounds the description states are not repeated as keywords (docs/tool-conventions.md §1.5); the validator still checks them.
    expect(s.properties.page).toEqual({ description: 'Page, from 1', type: 'integer' });
    expect(s.properties.label).toEqual({ description: 'Label, 1-200 characters', type: 'string' });
    expect(s.properties.memo).toEqual({ description: 'Memo, at most 2,000 characters', type: 'string', minLength: 1 });
    // The long-text default of docs/domain.md §1 is not stated either.
    expect(s.properties.body).toEqual({ description: 'Body', type: 'string' });
    expect(s.properties.items).toEqual({
      description: 'Items',
      type: 'array',
      maxItems: 2,
      items: {
        type: 'object',
        properties: { name: { description: 'Name', type: 'string', minLength: 1, maxLength: 5 }, flag: { description: 'Flag', type: 'boolean' } },
        required: ['name'],
        additionalProperties: false,
      },
    });
    expect(s.properties.links).toEqual({ description: 'Links', type: 'array', items: { type: 'string', format: 'uuid' } });
    expect(s.properties.tags).toEqual({ description: 'Tags', type: 'array', items: { type: 'string', minLength: 1, maxLength: 4 } });
    expect(s.properties.kinds).toEqual({ description: 'Kinds', type: 'array', items: { type: 'string', enum: ['a', 'b'] } });
    expect(new ToolArguments(NoArgsDto).schema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('returns the validated instance, absent fields absent', () => {
    const r = args.parse({ thingUuid: UUID.toUpperCase(), title: 'T', items: [{ name: 'n' }], note: null });
    expect(r).toEqual({ ok: true, value: expect.any(ArgsDto) });
    if (r.ok) expect({ ...r.value }).toEqual({ thingUuid: UUID.toUpperCase(), title: 'T', items: [{ name: 'n' }], note: null });
    expect(new ToolArguments(NoArgsDto).parse(undefined)).toEqual({ ok: true, value: expect.any(NoArgsDto) });
  });

  it('names every failing field once, nested and list items by their dotted path, unknown arguments by their own', () => {
    const paths = (raw: unknown) => issues(raw).map((i) => i.path);
    expect(paths({ title: 5, bogus: 1 })).toEqual(['bogus', 'thingUuid', 'title']);
    expect(issues({ thingUuid: UUID, title: '' })).toEqual([{ path: 'title', message: expect.stringContaining('longer than or equal to 1') }]);
    expect(paths({ thingUuid: UUID, title: 'T', size: 1.5, note: 'long' })).toEqual(['note', 'size']);
    expect(paths({ thingUuid: UUID, title: 'T', items: [{ name: 'ok' }, { name: '', x: 1 }] })).toEqual(['items.1.x', 'items.1.name']);
    expect(paths({ thingUuid: UUID, title: 'T', items: 'x' })).toEqual(['items']);
    expect(paths({ thingUuid: UUID, title: 'T', links: [UUID, 'x'], tags: ['ok', ''], kinds: ['a', 'c'] })).toEqual(['links.1', 'tags.1', 'kinds.1']);
    expect(paths({ thingUuid: UUID, title: 'T', tags: ['toolong'] })).toEqual(['tags.0']);
    expect(issues({ thingUuid: UUID, title: 'T', target: UUID })).toEqual([{ path: 'target', message: 'requires kind' }]);
    expect(paths({ thingUuid: UUID, title: 'T', target: 'x' })).toEqual(['target']);
    expect(issues({ thingUuid: UUID, title: 'T', extra: 1 })).toEqual([{ path: 'extra', message: 'should not exist' }]);
    // Bounds left out of the schema because the description states them are still checked.
    expect(paths({ thingUuid: UUID, title: 'T', page: 0, label: '', memo: 'x'.repeat(2001) })).toEqual(['page', 'label', 'memo']);
    expect(paths({ thingUuid: UUID, title: 'T', page: Number.MAX_SAFE_INTEGER + 2, label: 'x'.repeat(201), body: 'x'.repeat(100_001) })).toEqual(['page', 'label', 'body']);
  });

  it('reports __proto__ and constructor keys as unknown arguments, at any depth, and changes no prototype', () => {
    const raw = JSON.parse(`{"thingUuid":"${UUID}","title":"T","__proto__":{"polluted":1},"items":[{"name":"n","constructor":{"x":1}}]}`) as unknown;
    expect(issues(raw)).toEqual([
      { path: '__proto__', message: 'should not exist' },
      { path: 'items.0.constructor', message: 'should not exist' },
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses null where the field is not nullable, and non-object arguments at the root', () => {
    expect(issues({ thingUuid: UUID, title: 'T', size: null }).map((i) => i.path)).toEqual(['size']);
    for (const raw of ['x', null, [], 5]) expect(issues(raw)).toEqual([{ path: '', message: 'must be an object' }]);
  });

  it('refuses text PostgreSQL cannot store after the shape checks', () => {
    expect(issues({ thingUuid: UUID, title: 'a\u0000' })).toEqual([{ path: 'title', message: 'must not contain NUL (U+0000) characters' }]);
  });

  it('on REST leaves minimum lengths and `limits: service` to the service, and checks the rest', async () => {
    expect(await restFields(BodyDto, { title: '', note: 'longer' })).toEqual([]);
    expect(await restFields(BodyDto, { title: 'x'.repeat(11), size: 0 })).toEqual(['title', 'size']);
    expect(await restFields(BodyDto, { title: 'T', links: ['x'], kinds: ['c'] })).toEqual(['links', 'kinds']);
  });
});
