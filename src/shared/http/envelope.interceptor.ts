import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, type Observable } from 'rxjs';

const RAW_KEY = 'svc:raw-response';
/** The handler writes its own body (health, metrics, SSE, tool endpoint); no envelope. */
export const RawResponse = (): MethodDecorator & ClassDecorator => SetMetadata(RAW_KEY, true);

/** Wraps every REST result as `{success: true, data}`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.reflector.getAllAndOverride<boolean>(RAW_KEY, [ctx.getHandler(), ctx.getClass()])) return next.handle();
    return next.handle().pipe(map((data: unknown) => ({ success: true, data: data ?? null })));
  }
}
