import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/config.js';
import { PlainTextError } from '../../shared/errors/plain-text-error.js';
import { StreamService } from './stream.service.js';

/**
 * At most SSE_MAX_STREAMS_PER_USER open streams per user on this instance (platform.md §6.2): a slot is taken here,
 * after authentication, and given back when the response closes, however the stream ends. One more answers 429
 * `text/plain` with `Retry-After` (the base reconnect delay).
 */
@Injectable()
export class StreamLimitGuard implements CanActivate {
  constructor(
    private readonly streams: StreamService,
    private readonly config: AppConfig,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const user = req.auth?.actor.uuid;
    if (!user) return true;
    if (!this.streams.reserve(user)) {
      throw new PlainTextError(429, 'Too many streams', { 'Retry-After': String(Math.ceil(this.config.sseRetryMs / 1000)) });
    }
    res.once('close', () => this.streams.release(user));
    return true;
  }
}
