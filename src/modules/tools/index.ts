export { ToolsModule } from './tools.module.js';
export { Tool, type ToolContext, type ToolOptions } from './tool.decorator.js';
export { OUTPUT } from './output-schemas.js';
export { ToolRegistry } from './tool-registry.js';
export { McpEndpoint } from './mcp-endpoint.js';
export { RATE_LIMITED_RPC_CODE } from './mcp-errors.js';
export { TOOL_ORDER } from './catalogue.js';
