import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/config.js';
import { PlainTextError } from '../../shared/errors/plain-text-error.js';
import { StreamConnections } from './stream-connections.js';

/**
 * At most SSE_MAX_STREAMS_PER_USER open streams per user on this instance (docs/sse.md): a slot is taken here,
 * after authentication, and given back when the response closes, however the stream ends. One more answers 429
 * `text/plain` with `Retry-After` (the base reconnect delay).
 */
@Injectable()
export class StreamLimitGuard implements CanActivate {
  constructor(
    private readonly connections: StreamConnections,
    private readonly config: AppConfig,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const user = req.auth?.actor.uuid;
    if (!user) return true;
    if (!this.connections.reserve(user)) {
      throw new PlainTextError(429, 'Too many streams', { 'Retry-After': String(Math.ceil(this.config.sseRetryMs / 1000)) });
    }
    res.once('close', () => this.connections.release(user));
    return true;
  }
}
