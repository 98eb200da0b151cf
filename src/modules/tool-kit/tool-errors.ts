import type { ArgumentIssue } from './tool-arguments.js';

/** Answered as JSON-RPC -32602 "Unknown tool: <name>", identical for missing and hidden tools (docs/tool-conventions.md §1.4). */
export class UnknownToolError extends Error {
  constructor(readonly toolName: string) {
    super(`Unknown tool: ${toolName}`);
  }
}

/** Arguments that fail the tool's DTO: the VALIDATION_ERROR result with every problem's path (docs/tool-conventions.md §1.4). */
export class ToolArgumentsError extends Error {
  constructor(readonly issues: ArgumentIssue[]) {
    super('Invalid arguments');
  }
}
