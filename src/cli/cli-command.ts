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

interface CommandShape {
  /** The words that name it, e.g. ['agent', 'key', 'create']. */
  path: string[];
  /** Option synopsis shown in the usage text. */
  synopsis: string;
  options: NonNullable<ParseArgsConfig['options']>;
  required?: string[];
  /** Names of the positional arguments after the path, all required (e.g. ['tool']); none by default. */
  positionals?: string[];
}

/** One admin command: a thin adapter that parses options and calls a service. */
export interface DatabaseCommand extends CommandShape {
  database?: true;
  /** Migration commands open the database without running migrations first. */
  migrate?: boolean;
  run(ctx: CliContext, values: OptionValues): Promise<object>;
}

/** A command that talks to a running service over HTTP (the tool client) and never opens a database. */
export interface RemoteCommand extends CommandShape {
  database: false;
  run(values: OptionValues): Promise<object>;
}

export type CliCommand = DatabaseCommand | RemoteCommand;

/**
 * A failure whose JSON is already shaped, e.g. a tool's `{"error": {...}}` result: printed on stderr as it is, exit 1.
 */
export class ReportedError extends Error {
  constructor(readonly error: Record<string, unknown>) {
    super(typeof error.message === 'string' ? error.message : 'Command failed');
  }
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
