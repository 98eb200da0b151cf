import { Controller, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../shared/auth/decorators.js';
import { AppError } from '../../shared/errors/app-error.js';
import { OAuthServer } from './oauth-server.js';
import { RegistrationRefusedFilter, RegistrationRoute, RegistrationThrottleGuard } from './registration.guard.js';

/**
 * Dynamic client registration (RFC 7591) through Nest's pipeline, so its limit is a guard: the request is counted,
 * then handed to the authorization server's own registration endpoint (the mount middleware leaves this one route
 * to the controller).
 */
@Controller('oauth')
@Public()
@ApiTags('oauth')
@UseFilters(RegistrationRefusedFilter)
export class RegistrationController {
  constructor(private readonly server: OAuthServer) {}

  @Post('reg')
  @ApiOperation({
    summary: 'Dynamic client registration (RFC 7591), while OAuth is on',
    description: 'At most 20 per client address per hour (all instances together); then 429 with Retry-After and `{"error":"too_many_requests","error_description":…}`.',
  })
  @RegistrationRoute()
  @UseGuards(RegistrationThrottleGuard)
  register(@Req() req: Request, @Res() res: Response): void {
    if (!this.server.enabled) throw new AppError('NOT_FOUND', 'Route not found');
    this.server.handle(req, res, '/reg');
  }
}
