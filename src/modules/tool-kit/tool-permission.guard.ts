import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TOOL_METADATA, TOOL_CONTEXT_TYPE, type ToolContext, type ToolOptions } from './tool.metadata.js';
import { UnknownToolError } from './tool-errors.js';

/**
 * The permission guard of every tool: the bit its `@Tool` metadata records must be among the caller's effective
 * permissions (re-read from the database on every request). Refused exactly like a tool that does not exist, and
 * before the arguments are validated, so a hidden tool cannot be told apart from an unknown one.
 */
@Injectable()
export class ToolPermissionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType<string>() !== TOOL_CONTEXT_TYPE) return true;
    const tool = this.reflector.get<ToolOptions | undefined>(TOOL_METADATA, context.getHandler());
    if (!tool) return true;
    const ctx = context.getArgByIndex<ToolContext>(1);
    if (tool.permission !== undefined && !ctx.actor.permissions.has(tool.permission)) throw new UnknownToolError(tool.name);
    return true;
  }
}
