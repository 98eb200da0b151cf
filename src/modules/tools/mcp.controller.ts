import { All, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public } from '../../shared/auth/decorators.js';
import { McpEndpoint, methodNotAllowed } from './mcp-endpoint.js';

/**
 * `/api/mcp` in Nest's route table and the OpenAPI document. `POST` is answered by McpEndpoint mounted as an
 * Express middleware ahead of the router (bootstrap.ts), so the route below only runs if that mount is missing;
 * it delegates to the same endpoint. GET and DELETE answer 405 here.
 */
@Controller('api/mcp')
@Public()
export class McpController {
  constructor(private readonly endpoint: McpEndpoint) {}

  @Post()
  handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.endpoint.handle(req, res);
  }

  @All()
  @HttpCode(405)
  methodNotAllowed(@Res() res: Response): void {
    methodNotAllowed(res);
  }
}
