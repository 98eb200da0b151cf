import { Ajv } from 'ajv';
import { dtoJsonSchema } from './dto-schema.js';
import { PersonDto } from './person.dto.js';
import { PageOf, Prop } from './response-fields.js';

class PartDto {
  @Prop.string() id: string;
  @Prop.integer({ nullable: true }) size: number | null;
  @Prop.nested(PersonDto, { nullable: true }) owner: PersonDto | null;
  @Prop.strings() tags: string[];
  @Prop.list(PersonDto) people: PersonDto[];
}

class ThingDto {
  @Prop.string({ description: 'Not in the tool schema' }) uuid: string;
  @Prop.number({ nullable: true }) score: number | null;
  @Prop.boolean() done: boolean;
  @Prop.object({ nullable: true }) value: Record<string, unknown> | null;
  @Prop.nested(PersonDto) author: PersonDto;
  @Prop.list(PartDto) parts: PartDto[];
  @Prop.strings({ optional: true }) warnings?: string[];
}

class ThingPageDto extends PageOf('things', PartDto) {
  @Prop.integer() extra: number;
}

/** A read tool's output schema from a response DTO (README "Agents and the tool endpoint"). */
describe('dtoJsonSchema of a response DTO ({ answer: true })', () => {
  const ajv = new Ajv({ allErrors: true });

  it('states each root key with its type, and one level inside a list of objects, open and without descriptions', () => {
    expect(dtoJsonSchema(ThingDto, { answer: true })).toEqual({
      type: 'object',
      properties: {
        uuid: { type: 'string' },
        score: { type: ['number', 'null'] },
        done: { type: 'boolean' },
        value: { type: ['object', 'null'] },
        author: { type: 'object' },
        parts: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, size: { type: ['integer', 'null'] }, owner: { type: ['object', 'null'] }, tags: { type: 'array' }, people: { type: 'array' } },
          },
        },
        warnings: { type: 'array' },
      },
      required: ['uuid', 'score', 'done', 'value', 'author', 'parts'],
    });
  });

  it('keeps the key order of a page: items, page, pageSize, total, truncated (optional), then the extra keys', () => {
    const schema = dtoJsonSchema(ThingPageDto, { answer: true }) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['things', 'page', 'pageSize', 'total', 'truncated', 'extra']);
    expect(schema.required).toEqual(['things', 'page', 'pageSize', 'total', 'extra']);
  });

  it('accepts a truncated page and nulls where a field may be null, and refuses a wrong type or a missing key', () => {
    const validate = ajv.compile(dtoJsonSchema(ThingPageDto, { answer: true }));
    const part = { id: 'p', size: null, owner: null, tags: [], people: [], more: 'open' };
    expect(validate({ things: [part], page: 1, pageSize: 20, total: 3, extra: 0, truncated: true })).toBe(true);
    expect(validate({ things: [part], page: 1, pageSize: 20, total: 3 })).toBe(false);
    expect(validate({ things: [{ ...part, size: 'big' }], page: 1, pageSize: 20, total: 3, extra: 0 })).toBe(false);
  });

  it('leaves an input DTO schema as it was: closed, with its constraints', () => {
    expect(dtoJsonSchema(PersonDto)).toMatchObject({ additionalProperties: false, required: ['type', 'uuid', 'name'] });
  });
});
