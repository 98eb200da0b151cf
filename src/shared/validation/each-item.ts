import type { ValidationOptions } from 'class-validator';

/** The per-item test of an `each` check, carried in its context so that a failure can name the item. */
export interface EachItemContext {
  item: (value: unknown) => boolean;
}

/**
 * Options of a class-validator check applied to each item of a list (`each: true`). class-validator reports such a
 * failure on the list; the tools name the first failing item instead (`entityTypes.0`), found with `item`.
 */
export const eachItem = (item: (value: unknown) => boolean, options: ValidationOptions = {}): ValidationOptions => ({
  ...options,
  each: true,
  context: { item } satisfies EachItemContext,
});

/** The index of the first item `context` refuses, or -1. */
export function firstFailingItem(value: unknown, context: unknown): number {
  const item = (context as Partial<EachItemContext> | undefined)?.item;
  if (!Array.isArray(value) || typeof item !== 'function') return -1;
  return value.findIndex((v) => !item(v));
}
