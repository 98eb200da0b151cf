import type { IncomingHttpHeaders } from 'node:http';
import type { Actor } from '../../shared/auth/actor.js';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import type { Permission } from '../../shared/auth/permissions.js';

/** docs/tool-conventions.md §1.3 hint codes: R read-only, W write, WI idempotent write, D destructive + idempotent. */
export type ToolHint = 'R' | 'W' | 'WI' | 'D';

export interface ToolOptions {
  name: string;
  /** The single permission bit a gated tool needs; absent for public and session tools. */
  permission?: Permission;
  /** Human title for the annotations, e.g. "Claim task". */
  title: string;
  hint: ToolHint;
  /** At most two sentences (docs/tool-conventions.md §6). */
  description: string;
  /**
   * The arguments' DTO class (fields from shared/validation/fields.ts): its JSON Schema is built once at boot and each
   * call's arguments are validated against it; the handler receives the validated instance.
   */
  input: new () => object;
  /**
   * The result's response DTO class (fields from shared/validation/response-fields.ts), the one its REST route
   * documents too: its shallow JSON Schema (README "Agents and the tool endpoint (MCP)") is built once at boot and published as the tool's
   * `outputSchema`, and a successful result then carries the same object as `structuredContent`. Every read-only
   * tool has one.
   */
  output?: abstract new () => object;
}

/** What a tool handler gets besides its parsed arguments: the caller, resolved once per HTTP request. */
export interface ToolContext {
  actor: Actor;
  auth: AuthContext;
  headers: IncomingHttpHeaders;
  requestId: string | undefined;
  /** Aborted when the caller's HTTP request closes (the client left); made on first use. For tools that wait. */
  readonly signal?: AbortSignal;
}

export const TOOL_METADATA = 'svc:tool';

/** The execution-context type of a tool call (`ExecutionContext.getType()`), as 'http' is for a route. */
export const TOOL_CONTEXT_TYPE = 'mcp';

/**
 * The parameters of a tool method, for Nest's external context (as GraphQL's `@Args()`/`@Context()` are for a
 * resolver): index 0 the arguments, which the tool's argument pipe validates; index 1 the ToolContext.
 */
export const TOOL_PARAMS_METADATA = 'svc:tool-params';

export enum ToolParamtype {
  ARGS = 0,
  CONTEXT = 1,
}

/** Maps a tool parameter to its value among the call's arguments `(args, ctx)`. */
export const TOOL_PARAMS_FACTORY = {
  exchangeKeyForValue: (type: number, _data: unknown, args: unknown[]): unknown => args[type],
};
