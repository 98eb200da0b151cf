import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { ToolArguments } from './tool-arguments.js';
import { ToolArgumentsError } from './tool-errors.js';

/**
 * Validates a tool's arguments against its DTO (the parameter's `data`), every check, each problem with its dotted
 * path; the method receives the validated instance. One instance for all tools: the prepared validator of each DTO
 * is built once, on first use.
 */
export class ToolArgumentsPipe implements PipeTransform {
  private readonly prepared = new Map<new () => object, ToolArguments<object>>();

  /** The DTO's prepared validator (and its JSON Schema, which the registry lists). */
  for(dto: new () => object): ToolArguments<object> {
    let args = this.prepared.get(dto);
    if (!args) {
      args = new ToolArguments(dto);
      this.prepared.set(dto, args);
    }
    return args;
  }

  transform(value: unknown, metadata: ArgumentMetadata): object {
    const parsed = this.for(metadata.data as unknown as new () => object).parse(value);
    if (!parsed.ok) throw new ToolArgumentsError(parsed.issues);
    return parsed.value;
  }
}

export const TOOL_ARGUMENTS_PIPE = new ToolArgumentsPipe();
