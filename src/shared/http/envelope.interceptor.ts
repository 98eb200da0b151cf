import { applyDecorators, Controller, Injectable, UseInterceptors, type CallHandler, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';

/** Wraps a REST result as `{success: true, data}` (platform.md §9). */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_ctx: unknown, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ success: true, data: data ?? null })));
  }
}

/**
 * A REST controller: its results go out in the JSON envelope. Bound per controller rather than app-wide so the
 * routes that write their own bodies (health, metrics, the SSE streams, the tool endpoint) carry no interceptor at
 * all: on a stream Nest's interceptor chain stays allocated for the connection's lifetime (BENCHMARKS.md "SSE").
 */
export const ApiController = (path: string): ClassDecorator => applyDecorators(Controller(path), UseInterceptors(EnvelopeInterceptor));
