import { applyDecorators, SetMetadata, UseFilters, UseGuards, UseInterceptors } from '@nestjs/common';
import { TOOL_ARGUMENTS_PIPE } from './tool-arguments.pipe.js';
import { ToolCallInterceptor } from './tool-call.interceptor.js';
import { ToolExceptionFilter } from './tool-exception.filter.js';
import { TOOL_METADATA, TOOL_PARAMS_METADATA, ToolParamtype, type ToolOptions } from './tool.metadata.js';
import { ToolPermissionGuard } from './tool-permission.guard.js';

export { TOOL_METADATA, type ToolContext, type ToolHint, type ToolOptions } from './tool.metadata.js';

/** Records a tool method's parameters: the validated arguments (through the argument pipe), then the context. */
function ToolParams(input: new () => object): MethodDecorator {
  return (target, key) => {
    Reflect.defineMetadata(
      TOOL_PARAMS_METADATA,
      {
        [`${ToolParamtype.ARGS}:0`]: { index: 0, data: input, pipes: [TOOL_ARGUMENTS_PIPE] },
        [`${ToolParamtype.CONTEXT}:1`]: { index: 1, data: undefined, pipes: [] },
      },
      target.constructor,
      key,
    );
  };
}

/**
 * Marks a provider method as an MCP tool. The registry discovers it at boot and runs it through Nest's external
 * execution context, so every call passes, in order: the permission guard (the bit recorded here; a hidden tool is
 * refused as unknown, before its arguments are looked at), the call interceptor (metrics, log line, result
 * rendering), the argument pipe (the DTO's checks), the method — and the tool exception filter, which turns a
 * refusal into an `isError` result.
 */
export const Tool = (options: ToolOptions): MethodDecorator =>
  applyDecorators(
    SetMetadata(TOOL_METADATA, options),
    UseGuards(ToolPermissionGuard),
    UseInterceptors(ToolCallInterceptor),
    UseFilters(ToolExceptionFilter),
    ToolParams(options.input),
  );
