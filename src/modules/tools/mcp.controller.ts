import { All, Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../../shared/auth/decorators.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { McpExceptionFilter, send } from './mcp-exception.filter.js';
import { ApiKeyGuard, McpOriginGuard, McpRateLimitGuard } from './mcp.guards.js';

/**
 * The tool endpoint (docs/platform.md §4). `POST` passes, in order, the API-key guard (no body has been read yet), the
 * rate-limit guard and the Origin guard; then the endpoint reads the body and the SDK answers. The session-cookie
 * guard does not apply (the key guard authenticates), nor does the REST envelope or exception filter.
 */
@Controller('api/mcp')
@Public()
@UseFilters(McpExceptionFilter)
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post()
  @UseGuards(ApiKeyGuard, McpRateLimitGuard, McpOriginGuard)
  handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.endpoint.serve(req, res, req.mcp!);
  }

  /** GET, DELETE and the rest: 405 with `Allow: POST` (the endpoint is stateless: no streams, no sessions). */
  @All()
  methodNotAllowed(@Res() res: Response): void {
    send(res, 405, -32000, 'Method not allowed', { Allow: 'POST' });
  }
}
