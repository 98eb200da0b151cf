import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { IdentityModule } from '../identity/index.js';
import { OAuthModule } from '../oauth/index.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { McpController } from './mcp.controller.js';
import { ToolRegistry } from './tool-registry.js';

@Module({
  imports: [DiscoveryModule, IdentityModule, OAuthModule],
  controllers: [McpController],
  providers: [ToolRegistry, McpEndpoint],
  exports: [ToolRegistry, McpEndpoint],
})
export class ToolsModule {}
