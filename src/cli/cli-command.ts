import type { ParseArgsConfig } from 'node:util';
import type { DataSource } from 'typeorm';
import { NotFoundError } from '../shared/errors/app-error.js';
import { isUuid } from '../shared/validation/uuid-param.pipe.js';

/** A usage mistake (unknown command, missing or unknown option): exit code 2, never reaches the database. */
export class UsageError extends Error {}

export type OptionValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

export interface CliContext {
  dataSource: DataSource;
}

/** One admin command: a thin adapter that parses options and calls a service. */
export interface CliCommand {
  /** The words that name it, e.g. ['agent', 'key', 'create']. */
  path: string[];
  /** Option synopsis shown in the usage text. */
  synopsis: string;
  options: NonNullable<ParseArgsConfig['options']>;
  required?: string[];
  /** Migration commands open the database without running migrations first. */
  migrate?: boolean;
  run(ctx: CliContext, values: OptionValues): Promise<object>;
}

export function str(values: OptionValues, name: string): string {
  const v = values[name];
  if (typeof v !== 'string') throw new UsageError(`Missing option --${name}`);
  return v;
}

export function optionalStr(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function list(values: OptionValues, name: string): string[] | undefined {
  const v = values[name];
  return Array.isArray(v) ? v.map(String) : undefined;
}

/** A uuid option that is not a uuid names no record, as a malformed path uuid does in REST. */
export function uuidOf(values: OptionValues, name: string, entity: string): string {
  const v = str(values, name);
  if (!isUuid(v)) throw new NotFoundError(entity);
  return v.toLowerCase();
}
