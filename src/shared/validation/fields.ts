import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  isIn,
  IsString,
  isString,
  Max,
  MaxLength,
  maxLength,
  Min,
  MinLength,
  minLength,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { eachItem } from './each-item.js';
import { IsEntityUuid } from './is-entity-uuid.js';
import { IsEntityUuidList } from './is-entity-uuid-list.js';
import { TOOL_CHECKS } from './surfaces.js';

/**
 * Composite field decorators for input DTOs: each one states a field once and yields its OpenAPI schema (from which
 * the tool's JSON Schema is built too, see dto-schema.ts) and its class-validator rules, so a limit shown in
 * /api/docs or in tools/list is the limit checked.
 *
 * Tools check every documented limit here. REST leaves two kinds to the application service, which refuses them with
 * the domain's message (text rules of docs/domain.md §1, counted after trimming): a `minLength` (blank text), and every
 * limit of a field marked `limits: 'service'`. Those checks carry the TOOL_CHECKS group, which REST validation skips.
 */
export interface FieldOptions {
  /** The field may be omitted. */
  optional?: boolean;
  /** null is accepted (e.g. "clear"); without it an optional field may be omitted but not null. */
  nullable?: boolean;
  description?: string;
  example?: unknown;
  /** Who enforces the documented limits on REST: the DTO (default) or the service. */
  limits?: 'dto' | 'service';
}

interface Sized {
  minItems?: number;
  maxItems?: number;
}

function property(o: FieldOptions, schema: ApiPropertyOptions): PropertyDecorator {
  const doc = { ...schema, required: !o.optional } as ApiPropertyOptions & Record<string, unknown>;
  for (const [k, v] of Object.entries(doc)) if (v === undefined) delete doc[k];
  if (o.nullable) doc.nullable = true;
  if (o.description !== undefined) doc.description = o.description;
  if (o.example !== undefined) doc.example = o.example;
  return ApiProperty(doc);
}

/**
 * Decorators listed in source order and applied bottom-up, as stacked `@A @B @C` are: class-validator then runs the
 * checks, and reports their messages, in the order a hand-written DTO would (the tools report the first per field).
 */
const stack = (...decorators: PropertyDecorator[]): PropertyDecorator => applyDecorators(...decorators.reverse());

/**
 * `optional` without `nullable`: the field may be omitted, but null is refused by the field's own check (IsOptional
 * alone would let null through to the service and on to a NOT NULL column). A required nullable field (a key that
 * must be present, null meaning "none") checks everything but null.
 */
const presence = (o: FieldOptions): PropertyDecorator[] => {
  if (o.optional) return o.nullable ? [IsOptional()] : [ValidateIf((_target: object, value: unknown) => value !== undefined)];
  return o.nullable ? [ValidateIf((_target: object, value: unknown) => value !== null)] : [];
};

/** The options of a limit's check: the tools-only group when REST leaves the limit to the service. */
const limit = (o: FieldOptions, extra: ValidationOptions = {}): ValidationOptions => (o.limits === 'service' ? { ...extra, groups: [TOOL_CHECKS] } : extra);
const toolsOnly = (extra: ValidationOptions = {}): ValidationOptions => ({ ...extra, groups: [TOOL_CHECKS] });

function sizes(o: FieldOptions & Sized): PropertyDecorator[] {
  const rules: PropertyDecorator[] = [];
  if (o.minItems !== undefined) rules.push(ArrayMinSize(o.minItems, limit(o)));
  if (o.maxItems !== undefined) rules.push(ArrayMaxSize(o.maxItems, limit(o)));
  return rules;
}

function lengths(o: FieldOptions & { minLength?: number; maxLength?: number }): PropertyDecorator[] {
  const rules: PropertyDecorator[] = [];
  if (o.minLength !== undefined) rules.push(MinLength(o.minLength, toolsOnly()));
  if (o.maxLength !== undefined) rules.push(MaxLength(o.maxLength, limit(o)));
  return rules;
}

function itemLengths(o: FieldOptions & { minLength?: number; maxLength?: number }): PropertyDecorator[] {
  const rules: PropertyDecorator[] = [];
  const { minLength: min, maxLength: max } = o;
  if (min !== undefined) rules.push(MinLength(min, toolsOnly(eachItem((v) => isString(v) && minLength(v, min)))));
  if (max !== undefined) rules.push(MaxLength(max, limit(o, eachItem((v) => isString(v) && maxLength(v, max)))));
  return rules;
}

/** A string of `minLength`..`maxLength` characters; see the class comment for who checks which on REST. */
export function TextField(o: FieldOptions & { maxLength?: number; minLength?: number } = {}): PropertyDecorator {
  return stack(property(o, { type: String, minLength: o.minLength, maxLength: o.maxLength }), ...presence(o), IsString(), ...lengths(o));
}

/** An array of strings (ids local to one request, names), each of `minLength`..`maxLength` characters. */
export function TextListField(o: FieldOptions & Sized & { minLength?: number; maxLength?: number } = {}): PropertyDecorator {
  const items = { type: 'string', minLength: o.minLength, maxLength: o.maxLength };
  return stack(
    property(o, { type: 'array', items: withoutUndefined(items), minItems: o.minItems, maxItems: o.maxItems }),
    ...presence(o),
    IsArray(),
    ...sizes(o),
    IsString(eachItem(isString)),
    ...itemLengths(o),
  );
}

/** One of `values`; with `limits: 'service'` REST requires only a string here and the service names the values. */
export function EnumField(values: readonly string[], o: FieldOptions = {}): PropertyDecorator {
  const rules = o.limits === 'service' ? [IsString(), IsIn(values as string[], toolsOnly())] : [IsIn(values as string[])];
  return stack(property(o, { enum: [...values] }), ...presence(o), ...rules);
}

/** An array of values out of `values`. */
export function EnumListField(values: readonly string[], o: FieldOptions & Sized = {}): PropertyDecorator {
  return stack(
    property(o, { enum: [...values], isArray: true, minItems: o.minItems, maxItems: o.maxItems }),
    ...presence(o),
    IsArray(),
    ...sizes(o),
    IsIn(values as string[], eachItem((v) => isIn(v, values as string[]))),
  );
}

/** A uuid: any 8-4-4-4-12 hexadecimal string (the pattern the path pipe and the services use). */
export function UuidField(o: FieldOptions = {}): PropertyDecorator {
  return stack(property(o, { type: String, format: 'uuid' }), ...presence(o), IsEntityUuid());
}

/** An array of uuids, with optional size bounds. */
export function UuidListField(o: FieldOptions & Sized = {}): PropertyDecorator {
  return stack(
    property(o, { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: o.minItems, maxItems: o.maxItems }),
    ...presence(o),
    IsArray(),
    ...sizes(o),
    IsEntityUuidList(),
  );
}

/** An array of nested objects of class `of`, each validated, with optional size bounds. */
export function ListField(of: new () => object, o: FieldOptions & Sized = {}): PropertyDecorator {
  return stack(
    property(o, { type: [of], minItems: o.minItems, maxItems: o.maxItems }),
    ...presence(o),
    IsArray(),
    ...sizes(o),
    ValidateNested({ each: true }),
    Type(() => of),
  );
}

/** A number within [minimum, maximum]. */
export function NumberField(o: FieldOptions & { minimum: number; maximum: number }): PropertyDecorator {
  return stack(property(o, { type: Number, minimum: o.minimum, maximum: o.maximum }), ...presence(o), IsNumber(), Min(o.minimum, limit(o)), Max(o.maximum, limit(o)));
}

/** An integer within [minimum, maximum]. */
export function IntegerField(o: FieldOptions & { minimum: number; maximum: number }): PropertyDecorator {
  return stack(property(o, { type: 'integer', minimum: o.minimum, maximum: o.maximum }), ...presence(o), IsInt(), Min(o.minimum, limit(o)), Max(o.maximum, limit(o)));
}

/** true or false. */
export function BooleanField(o: FieldOptions = {}): PropertyDecorator {
  return stack(property(o, { type: Boolean }), ...presence(o), IsBoolean());
}

function withoutUndefined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A DTO class of one required uuid field `key`: the id a REST route takes from its path and the equivalent tool as an
 * argument. A tool's arguments are then `IntersectionType(UuidArgs('taskUuid', '…'), TheRouteBodyDto)`.
 */
export function UuidArgs<K extends string>(key: K, description: string): new () => Record<K, string> {
  class UuidArgsDto {}
  UuidField({ description })(UuidArgsDto.prototype, key);
  Object.defineProperty(UuidArgsDto, 'name', { value: `${key.charAt(0).toUpperCase()}${key.slice(1)}ArgsDto` });
  return UuidArgsDto as new () => Record<K, string>;
}
