import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

/**
 * Property decorators of response DTOs: one per answer (README "Architecture"), from which both the read tools'
 * `outputSchema` (dto-schema.ts, `{ answer: true }`) and the OpenAPI response schemas are built. They record only the
 * OpenAPI metadata; nothing validates an answer.
 *
 * Each decorator is typed for the property it stands on: `@Prop.string() n: number` does not compile, and a property
 * that can be null must say so (`@Prop.string({ nullable: true }) notes: string | null`), as must one that can be left
 * out (`optional`: the key is absent, not null — the markers `truncated`, `warnings`, `hints`).
 */
export interface PropOptions {
  /** The value can be null (`[type, "null"]` in the tool's schema, `nullable` in OpenAPI). */
  nullable?: boolean;
  /** The key can be absent: not `required`. */
  optional?: boolean;
  /** For the OpenAPI document only (a tool's output schema states types only). */
  description?: string;
}

type Nullable = PropOptions & { nullable: true };
type Present = PropOptions & { nullable?: false };

/** A property decorator that only fits a property whose type is assignable to `V`. */
export type PropDecorator<V> = <K extends string>(target: { [P in K]?: V }, key: K) => void;

export type Dto = abstract new () => object;

function prop(schema: ApiPropertyOptions, o: PropOptions = {}): PropDecorator<unknown> {
  const doc = { ...schema, required: !o.optional } as ApiPropertyOptions & Record<string, unknown>;
  if (o.nullable) doc.nullable = true;
  if (o.description !== undefined) doc.description = o.description;
  return ApiProperty(doc) as PropDecorator<unknown>;
}

function string(o: Nullable): PropDecorator<string | null>;
function string(o?: Present): PropDecorator<string>;
function string(o?: PropOptions): PropDecorator<string | null> {
  return prop({ type: String }, o);
}

function integer(o: Nullable): PropDecorator<number | null>;
function integer(o?: Present): PropDecorator<number>;
function integer(o?: PropOptions): PropDecorator<number | null> {
  return prop({ type: 'integer' }, o);
}

function number(o: Nullable): PropDecorator<number | null>;
function number(o?: Present): PropDecorator<number>;
function number(o?: PropOptions): PropDecorator<number | null> {
  return prop({ type: Number }, o);
}

function boolean(o: Nullable): PropDecorator<boolean | null>;
function boolean(o?: Present): PropDecorator<boolean>;
function boolean(o?: PropOptions): PropDecorator<boolean | null> {
  return prop({ type: Boolean }, o);
}

/** An open object whose keys are not described (a JSON value, or a map keyed by uuid or name). */
function object(o: Nullable): PropDecorator<object | null>;
function object(o?: Present): PropDecorator<object>;
function object(o?: PropOptions): PropDecorator<object | null> {
  return prop({ type: 'object', additionalProperties: true }, o);
}

/** An object of DTO class `of` (the tools' schemas state only `object`; OpenAPI refers to `of`). */
function nested<T extends object>(of: abstract new () => T, o: Nullable): PropDecorator<T | null>;
function nested<T extends object>(of: abstract new () => T, o?: Present): PropDecorator<T>;
function nested(of: Dto, o?: PropOptions): PropDecorator<object | null> {
  return prop({ type: of }, o);
}

/** A list of objects of DTO class `of` (one level of it in the tools' schemas: each key's type). */
function list<T extends object>(of: abstract new () => T, o?: Present): PropDecorator<T[]> {
  return prop({ type: [of] }, o) as PropDecorator<T[]>;
}

/** A list of strings (uuids, names, messages). */
function strings(o?: Present): PropDecorator<readonly string[]> {
  return prop({ type: [String] }, o) as PropDecorator<readonly string[]>;
}

export const Prop = { string, integer, number, boolean, object, nested, list, strings };

/**
 * A list answer `{<items>, page, pageSize, total}` (README "Web REST API") of DTO class `of` under the key `items`, with
 * `truncated: true` when the tool cut rows to fit its result (never over REST). Named `<Items>PageDto` in OpenAPI;
 * a list with more top-level keys extends it.
 */
export function PageOf<K extends string, T extends object>(items: K, of: abstract new () => T): new () => Record<K, T[]> & PageDto {
  class Page {
    page: number;
    pageSize: number;
    total: number;
    truncated?: true;
  }
  Prop.list(of)(Page.prototype as Record<K, T[]>, items);
  Prop.integer()(Page.prototype, 'page');
  Prop.integer()(Page.prototype, 'pageSize');
  Prop.integer({ description: 'Every match, not only this page' })(Page.prototype, 'total');
  Prop.boolean({ optional: true, description: 'Present (true) when rows were dropped to fit the result size cap' })(Page.prototype, 'truncated');
  Object.defineProperty(Page, 'name', { value: `${items.charAt(0).toUpperCase()}${items.slice(1)}PageDto` });
  return Page as new () => Record<K, T[]> & PageDto;
}

export interface PageDto {
  page: number;
  pageSize: number;
  total: number;
  truncated?: true;
}

/** The answer of a deletion: `{uuid, deleted: true}` (README "Web REST API"). */
export class DeletedDto {
  @Prop.string() uuid: string;
  @Prop.boolean({ description: 'Always true' }) deleted: true;
}
