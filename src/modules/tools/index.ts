// The tool endpoint (docs/architecture.md): `POST /api/mcp` with its credential guards and the MCP SDK's wiring. The
// tools themselves are declared in their modules with the tool kit (`../tool-kit`).
export { ToolsModule } from './tools.module.js';
export { McpEndpoint } from './mcp-endpoint.js';
export { RATE_LIMITED_RPC_CODE } from './mcp-errors.js';
export { MCP_THROTTLER, mcpThrottlers } from './mcp-rate-limit.js';
