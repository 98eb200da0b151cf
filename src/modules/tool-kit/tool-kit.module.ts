import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ToolRegistry } from './tool-registry.js';

/** The tool registry (discovered `@Tool` methods of every module), for the endpoint that serves them. */
@Module({
  imports: [DiscoveryModule],
  providers: [ToolRegistry],
  exports: [ToolRegistry],
})
export class ToolKitModule {}
