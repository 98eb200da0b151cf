import { applyDecorators } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { IsEntityUuid } from './is-entity-uuid.js';
import { IsEntityUuidList } from './is-entity-uuid-list.js';

/**
 * Composite field decorators for request DTOs: each one states a field once and yields both its OpenAPI schema and
 * its class-validator rules, so a limit shown in /api/docs is the limit checked.
 *
 * `limits: 'service'` documents a limit without checking it in the DTO: the application service checks it with the
 * same message the equivalent tool gives (text rules of domain.md §1, counted in characters after trimming).
 */
export interface FieldOptions {
  /** The field may be omitted. */
  optional?: boolean;
  /** null is accepted (e.g. "clear", "default"); without it an optional field may be omitted but not null. */
  nullable?: boolean;
  description?: string;
  example?: unknown;
  /** Who enforces the documented limits: the DTO (default) or the service. */
  limits?: 'dto' | 'service';
}

function property(o: FieldOptions, schema: ApiPropertyOptions): PropertyDecorator {
  const doc = { ...schema, required: !o.optional } as ApiPropertyOptions & Record<string, unknown>;
  if (o.nullable) doc.nullable = true;
  if (o.description !== undefined) doc.description = o.description;
  if (o.example !== undefined) doc.example = o.example;
  return ApiProperty(doc);
}

/**
 * Decorators listed in source order and applied bottom-up, as stacked `@A @B @C` are: class-validator then runs the
 * checks, and reports their messages, in the order a hand-written DTO would.
 */
const stack = (...decorators: PropertyDecorator[]): PropertyDecorator => applyDecorators(...decorators.reverse());

/**
 * `optional` without `nullable`: the field may be omitted, but null is refused by the field's own check (IsOptional
 * alone would let null through to the service and on to a NOT NULL column; the tools refuse it too).
 */
const optional = (o: FieldOptions): PropertyDecorator[] => {
  if (!o.optional) return [];
  return o.nullable ? [IsOptional()] : [ValidateIf((_target: object, value: unknown) => value !== undefined)];
};
const checked = (o: FieldOptions): boolean => o.limits !== 'service';

/**
 * A string of at most `maxLength` characters (checked here unless `limits: 'service'`). `minLength` is documented
 * only: blank or too-short text is refused by the service with the domain's message; stack `@MinLength` where a
 * DTO must check it.
 */
export function TextField(o: FieldOptions & { maxLength?: number; minLength?: number } = {}): PropertyDecorator {
  const max = checked(o) && o.maxLength !== undefined ? [MaxLength(o.maxLength)] : [];
  return stack(property(o, { type: String, maxLength: o.maxLength, minLength: o.minLength }), ...optional(o), IsString(), ...max);
}

/** An array of strings (ids local to one request, names). */
export function TextListField(o: FieldOptions = {}): PropertyDecorator {
  return stack(property(o, { type: [String] }), ...optional(o), IsArray(), IsString({ each: true }));
}

/** One of `values`; with `limits: 'service'` only a string is required here and the service names the values. */
export function EnumField(values: readonly string[], o: FieldOptions = {}): PropertyDecorator {
  return stack(property(o, { enum: [...values] }), ...optional(o), checked(o) ? IsIn(values as string[]) : IsString());
}

/** A uuid (the pattern the path pipe and the services use). */
export function UuidField(o: FieldOptions = {}): PropertyDecorator {
  return stack(property(o, { type: String, format: 'uuid' }), ...optional(o), IsEntityUuid());
}

/** An array of uuids, with optional size bounds. */
export function UuidListField(o: FieldOptions & { minItems?: number; maxItems?: number } = {}): PropertyDecorator {
  return stack(property(o, { type: [String], minItems: o.minItems, maxItems: o.maxItems }), ...optional(o), IsArray(), ...sizes(o), IsEntityUuidList());
}

/** An array of nested objects of class `of`, each validated, with optional size bounds. */
export function ListField(of: new () => object, o: FieldOptions & { minItems?: number; maxItems?: number } = {}): PropertyDecorator {
  return stack(
    property(o, { type: [of], minItems: o.minItems, maxItems: o.maxItems }),
    ...optional(o),
    IsArray(),
    ...sizes(o),
    ValidateNested({ each: true }),
    Type(() => of),
  );
}

/** A number within [minimum, maximum]. */
export function NumberField(o: FieldOptions & { minimum: number; maximum: number }): PropertyDecorator {
  return stack(property(o, { type: Number, minimum: o.minimum, maximum: o.maximum }), ...optional(o), IsNumber(), Min(o.minimum), Max(o.maximum));
}

/** true or false. */
export function BooleanField(o: FieldOptions = {}): PropertyDecorator {
  return stack(property(o, { type: Boolean }), ...optional(o), IsBoolean());
}

function sizes(o: FieldOptions & { minItems?: number; maxItems?: number }): PropertyDecorator[] {
  if (!checked(o)) return [];
  const rules: PropertyDecorator[] = [];
  if (o.minItems !== undefined) rules.push(ArrayMinSize(o.minItems));
  if (o.maxItems !== undefined) rules.push(ArrayMaxSize(o.maxItems));
  return rules;
}
