import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Logger } from 'pino';
import { ALL_PERMISSIONS, type Permission } from '../../shared/auth/permissions.js';
import { AppError, isDatabaseUnavailable } from '../../shared/errors/app-error.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { TOOL_RANK } from './catalogue.js';
import { ToolArguments } from './tool-arguments.js';
import { renderResult } from './tool-result.js';
import { TOOL_METADATA, type ToolContext, type ToolHint, type ToolOptions } from './tool.decorator.js';

/** A tool as `tools/list` shows it. */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
}

export interface CallResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
  [key: string]: unknown;
}

interface RegisteredTool {
  name: string;
  permission: Permission | null;
  rank: number;
  descriptor: ToolDescriptor;
  /** The tool publishes an outputSchema: successful results carry `structuredContent`. */
  structured: boolean;
  args: ToolArguments<object>;
  handler: (args: unknown, ctx: ToolContext) => Promise<unknown>;
}

const HINTS: Record<ToolHint, Pick<ToolDescriptor['annotations'], 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>> = {
  R: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  W: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  WI: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  D: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

/** One bit per permission: a permission set's cache key without sorting and joining strings on every request. */
const PERMISSION_BIT = new Map<string, number>(ALL_PERMISSIONS.map((p, i) => [p, 2 ** i]));

export type ToolOutcome = 'ok' | 'error' | 'unknown_tool';

/** Answered as JSON-RPC -32602 "Unknown tool: <name>", identical for missing and hidden tools. */
export class UnknownToolError extends Error {
  constructor(readonly toolName: string) {
    super(`Unknown tool: ${toolName}`);
  }
}

/**
 * Built once at boot from every `@Tool` method: JSON Schema, validator and annotations are prepared here, and the
 * filtered list for each permission set is computed once and reused. Per request only the filter and the caller's
 * context are bound.
 */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private tools: RegisteredTool[] = [];
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly listCache = new Map<number, { tools: ToolDescriptor[]; json: string }>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const proto = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(proto)) {
        const fn = instance[method] as ((...a: unknown[]) => unknown) | undefined;
        if (typeof fn !== 'function') continue;
        const options = this.reflector.get<ToolOptions | undefined>(TOOL_METADATA, fn);
        if (options) this.register(options, (args, ctx) => Promise.resolve(fn.call(instance, args, ctx)));
      }
    }
    this.tools.sort((a, b) => a.rank - b.rank);
  }

  register(options: ToolOptions, handler: RegisteredTool['handler']): void {
    const rank = TOOL_RANK.get(options.name);
    if (rank === undefined) throw new Error(`@Tool ${options.name} is not in the tool catalogue`);
    if (this.byName.has(options.name)) throw new Error(`@Tool ${options.name} is registered twice`);
    if (options.hint === 'R' && !options.output) throw new Error(`@Tool ${options.name} is read-only and has no output schema`);
    const args = new ToolArguments(options.input);
    const tool: RegisteredTool = {
      name: options.name,
      permission: options.permission ?? null,
      rank,
      args,
      handler,
      structured: options.output !== undefined,
      descriptor: {
        name: options.name,
        title: options.title,
        description: options.description,
        inputSchema: args.schema,
        ...(options.output ? { outputSchema: options.output } : {}),
        annotations: { title: options.title, ...HINTS[options.hint], openWorldHint: false },
      },
    };
    this.tools.push(tool);
    this.byName.set(tool.name, tool);
    this.listCache.clear();
  }

  /** Every registered tool name, in catalogue order. */
  names(): string[] {
    return this.tools.map((t) => t.name);
  }

  /** The public and session tools plus the gated tools whose bit the caller holds, in catalogue order. */
  list(permissions: ReadonlySet<Permission>): ToolDescriptor[] {
    return this.cachedList(permissions).tools;
  }

  /**
   * `JSON.stringify(list(permissions))`, computed once per permission set: the full catalogue is tens of kilobytes
   * and serializing it on every `tools/list` was a large share of the request's CPU.
   */
  listJson(permissions: ReadonlySet<Permission>): string {
    return this.cachedList(permissions).json;
  }

  private cachedList(permissions: ReadonlySet<Permission>): { tools: ToolDescriptor[]; json: string } {
    let key = 0;
    for (const p of permissions) key += PERMISSION_BIT.get(p) ?? 0;
    let entry = this.listCache.get(key);
    if (!entry) {
      const tools = this.tools.filter((t) => t.permission === null || permissions.has(t.permission)).map((t) => t.descriptor);
      entry = { tools, json: JSON.stringify(tools) };
      this.listCache.set(key, entry);
    }
    return entry;
  }

  /** A hidden tool is indistinguishable from a missing one. */
  find(name: string, permissions: ReadonlySet<Permission>): RegisteredTool {
    const tool = this.byName.get(name);
    if (!tool || (tool.permission !== null && !permissions.has(tool.permission))) {
      this.metrics.mcpCalls.inc({ tool: tool ? name : '(unknown)', outcome: 'unknown_tool' });
      throw new UnknownToolError(name);
    }
    return tool;
  }

  /** Validates, re-checks the permission bit, runs the handler and maps every failure to an `isError` result. */
  async call(tool: RegisteredTool, rawArgs: unknown, ctx: ToolContext): Promise<CallResult> {
    const started = process.hrtime.bigint();
    let outcome: ToolOutcome = 'ok';
    try {
      // The permission guard: re-checked on every call, whatever the caller saw in tools/list.
      if (tool.permission !== null && !ctx.actor.permissions.has(tool.permission)) {
        outcome = 'unknown_tool';
        throw new UnknownToolError(tool.name);
      }
      const parsed = tool.args.parse(rawArgs);
      if (!parsed.ok) {
        outcome = 'error';
        return errorResult('VALIDATION_ERROR', 'Invalid arguments', { details: parsed.issues });
      }
      const text = renderResult(await tool.handler(parsed.value, ctx));
      // The same object as the text (after any truncation), for clients that read structured content (tools.md §1.1).
      if (tool.structured) return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> };
      return { content: [{ type: 'text', text }] };
    } catch (err) {
      if (err instanceof UnknownToolError) throw err;
      outcome = 'error';
      if (err instanceof AppError) return errorResult(err.code, err.message, err.extra);
      if (isDatabaseUnavailable(err)) return errorResult('SERVICE_UNAVAILABLE', 'Service unavailable');
      const errorId = randomUUID();
      this.logger.error({ errorId, tool: tool.name, err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) }, 'tool failed');
      return errorResult('INTERNAL_ERROR', 'Internal error', { errorId });
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.mcpCalls.inc({ tool: tool.name, outcome });
      this.metrics.mcpDuration.observe({ tool: tool.name }, seconds);
      this.logger.info({ tool: tool.name, outcome, durationMs: Math.round(seconds * 1e4) / 10 }, 'tool call');
    }
  }
}

function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code, message, ...extra } }) }], isError: true };
}
