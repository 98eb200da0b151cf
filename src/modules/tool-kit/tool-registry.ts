import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, Reflector } from '@nestjs/core';
import { ALL_PERMISSIONS, type Permission } from '../../shared/auth/permissions.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { dtoJsonSchema } from '../../shared/validation/dto-schema.js';
import { TOOL_RANK } from './catalogue.js';
import { TOOL_ARGUMENTS_PIPE } from './tool-arguments.pipe.js';
import { UnknownToolError } from './tool-errors.js';
import type { CallResult } from './tool-result.js';
import {
  TOOL_CONTEXT_TYPE,
  TOOL_METADATA,
  TOOL_PARAMS_FACTORY,
  TOOL_PARAMS_METADATA,
  type ToolContext,
  type ToolHint,
  type ToolOptions,
} from './tool.metadata.js';

/** A tool as `tools/list` shows it. */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
}

export type { CallResult } from './tool-result.js';

interface RegisteredTool {
  name: string;
  permission: Permission | null;
  readOnly: boolean;
  rank: number;
  descriptor: ToolDescriptor;
  /** The method behind Nest's external context: guards, interceptors, pipes and filters included. */
  invoke: (args: unknown, ctx: ToolContext) => Promise<CallResult>;
}

const HINTS: Record<ToolHint, Pick<ToolDescriptor['annotations'], 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>> = {
  R: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  W: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  WI: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  D: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

/** One bit per permission: a permission set's cache key without sorting and joining strings on every request. */
const PERMISSION_BIT = new Map<string, number>(ALL_PERMISSIONS.map((p, i) => [p, 2 ** i]));

/** docs/tool-conventions.md §1.5: narrowing by request headers, which can only remove tools from what the permissions allow. */
export interface ToolNarrowing {
  /** `X-MCP-Tools`: only these names (null: no such header). */
  only: ReadonlySet<string> | null;
  /** `X-MCP-Readonly: true`: only read-only tools. */
  readOnly: boolean;
}

export const NO_NARROWING: ToolNarrowing = { only: null, readOnly: false };

/** A tools/list answer prepared for one permission set and narrowing. */
export interface ToolList {
  /** Names in `X-MCP-Tools` that are no tool of the catalogue. */
  unknown: string[];
  /** The names listed, for the call check. */
  names: ReadonlySet<string>;
  /** The listed tools' descriptors as JSON (UTF-8), serialized once. */
  bytes: Buffer;
}

/** Cached lists per permission set and narrowing; a header value an agent invents cannot grow it without bound. */
const MAX_CACHED_LISTS = 512;

/**
 * Built once at boot from every `@Tool` method (DiscoveryService): the JSON Schema, the argument validator and the
 * annotations are prepared here, and each method is wrapped in Nest's external execution context — as GraphQL
 * resolvers and microservice handlers are — so its guards, interceptors, pipes and exception filters apply per call.
 * The filtered list for each permission set (and narrowing) is computed once and reused.
 */
@Injectable()
export class ToolRegistry implements OnModuleInit {
  private tools: RegisteredTool[] = [];
  private readonly byName = new Map<string, RegisteredTool>();
  private readonly listCache = new Map<string, ToolList>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly externalContext: ExternalContextCreator,
    private readonly metrics: MetricsService,
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
        if (!options) continue;
        const invoke = this.externalContext.create(
          instance,
          fn,
          method,
          TOOL_PARAMS_METADATA,
          TOOL_PARAMS_FACTORY,
          undefined,
          undefined,
          { guards: true, interceptors: true, filters: true },
          TOOL_CONTEXT_TYPE,
        ) as RegisteredTool['invoke'];
        this.register(options, invoke);
      }
    }
    this.tools.sort((a, b) => a.rank - b.rank);
  }

  private register(options: ToolOptions, invoke: RegisteredTool['invoke']): void {
    const rank = TOOL_RANK.get(options.name);
    if (rank === undefined) throw new Error(`@Tool ${options.name} is not in the tool catalogue`);
    if (this.byName.has(options.name)) throw new Error(`@Tool ${options.name} is registered twice`);
    if (options.hint === 'R' && !options.output) throw new Error(`@Tool ${options.name} is read-only and has no output schema`);
    const tool: RegisteredTool = {
      name: options.name,
      permission: options.permission ?? null,
      readOnly: options.hint === 'R',
      rank,
      invoke,
      descriptor: {
        name: options.name,
        title: options.title,
        description: options.description,
        inputSchema: TOOL_ARGUMENTS_PIPE.for(options.input).schema as ToolDescriptor['inputSchema'],
        ...(options.output ? { outputSchema: dtoJsonSchema(options.output, { answer: true }) as ToolDescriptor['outputSchema'] } : {}),
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

  /** Every tool as listed, with the permission bit it needs (null: public or session tool), in catalogue order. */
  catalogue(): Array<{ descriptor: ToolDescriptor; permission: Permission | null }> {
    return this.tools.map((t) => ({ descriptor: t.descriptor, permission: t.permission }));
  }

  /** The public and session tools plus the gated tools whose bit the caller holds, in catalogue order, narrowed. */
  list(permissions: ReadonlySet<Permission>, narrowing: ToolNarrowing = NO_NARROWING): ToolList {
    let bits = 0;
    for (const p of permissions) bits += PERMISSION_BIT.get(p) ?? 0;
    const key = narrowing.only === null && !narrowing.readOnly ? String(bits) : `${bits}|${narrowing.readOnly ? 'r' : ''}|${narrowing.only ? [...narrowing.only].join(',') : '*'}`;
    let entry = this.listCache.get(key);
    if (!entry) {
      const only = narrowing.only;
      const tools = this.tools
        .filter((t) => (t.permission === null || permissions.has(t.permission)) && (!narrowing.readOnly || t.readOnly) && (only === null || only.has(t.name)))
        .map((t) => t.descriptor);
      const unknown = only === null ? [] : [...only].filter((n) => !this.byName.has(n));
      entry = { unknown, names: new Set(tools.map((t) => t.name)), bytes: Buffer.from(JSON.stringify(tools)) };
      if (this.listCache.size >= MAX_CACHED_LISTS) this.listCache.clear();
      this.listCache.set(key, entry);
    }
    return entry;
  }

  /**
   * Calls a tool through its guards, interceptors, pipes and filters. An unknown name, a name the narrowing headers
   * removed, or a tool the permission guard refuses throws UnknownToolError — indistinguishable from each other.
   */
  async call(name: string, args: unknown, ctx: ToolContext, narrowing: ToolNarrowing = NO_NARROWING): Promise<CallResult> {
    const tool = this.byName.get(name);
    try {
      if (!tool || (narrowing !== NO_NARROWING && !this.list(ctx.actor.permissions, narrowing).names.has(name))) throw new UnknownToolError(name);
      return await tool.invoke(args, ctx);
    } catch (err) {
      if (err instanceof UnknownToolError) this.metrics.mcpCalls.inc({ tool: tool ? name : '(unknown)', outcome: 'unknown_tool' });
      throw err;
    }
  }
}
