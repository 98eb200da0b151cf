// The MCP tool kit (docs/architecture.md): how a module declares its agent tools — `@Tool` with its permission,
// the per-tool guard, argument pipe, call interceptor and exception filter — and the registry that discovers them.
// It depends on the kernel only, so every domain module imports it without importing the endpoint's credentials.
export { ToolKitModule } from './tool-kit.module.js';
export { Tool, type ToolContext, type ToolOptions } from './tool.decorator.js';
export { ToolRegistry, NO_NARROWING, type ToolNarrowing } from './tool-registry.js';
export { UnknownToolError } from './tool-errors.js';
export { isPlainObject } from './tool-arguments.js';
export { TOOL_ORDER } from './catalogue.js';
