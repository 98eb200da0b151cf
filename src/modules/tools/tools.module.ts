import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/index.js';
import { OAuthModule } from '../oauth/index.js';
import { ToolKitModule } from '../tool-kit/index.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { McpController } from './mcp.controller.js';

/** `POST /api/mcp`: credentials by key (identity) or OAuth token, then the kit's registry serves the tools. */
@Module({
  imports: [ToolKitModule, IdentityModule, OAuthModule],
  controllers: [McpController],
  providers: [McpEndpoint],
  exports: [McpEndpoint],
})
export class ToolsModule {}
