import { Body, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/config.js';
import type { AuthContext } from '../../shared/auth/auth-context.js';
import { CurrentAuth, Public } from '../../shared/auth/decorators.js';
import { ForbiddenError } from '../../shared/errors/app-error.js';
import { clientAddress } from '../../shared/http/client-address.js';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from '../../shared/http/cookies.js';
import { originAllowed } from '../../shared/http/origin.js';
import { AuthService } from './auth.service.js';
import { LoginDto } from './dto/login.dto.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { ApiEnvelope } from '../../shared/http/api-docs.js';
import { SignedInDto } from './dto/agent-record.dto.js';

@ApiController('api/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly config: AppConfig,
  ) {}

  @Post('login')
  @ApiEnvelope(SignedInDto)
  @Public()
  @HttpCode(200)
  async login(@Body() body: LoginDto, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    this.checkOrigin(req);
    const result = await this.auth.login(body.email, body.password, clientAddress(req));
    res.append('Set-Cookie', sessionCookie(result.token, this.config.cookieSecure));
    return result.data;
  }

  @Post('logout')
  @ApiEnvelope(null)
  @Public()
  @HttpCode(200)
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const token = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (token) this.checkOrigin(req);
    await this.auth.logout(token);
    res.append('Set-Cookie', clearedSessionCookie(this.config.cookieSecure));
    return null;
  }

  @Get('me')
  @ApiEnvelope(SignedInDto)
  me(@CurrentAuth() auth: AuthContext) {
    return { user: auth.user, company: { uuid: auth.actor.companyUuid, name: auth.companyName } };
  }

  private checkOrigin(req: Request): void {
    if (!originAllowed(req, this.config.publicOrigin, this.config.corsOrigins)) throw new ForbiddenError('Cross-site request refused');
  }
}
