import { Injectable, type CallHandler, type NestInterceptor } from '@nestjs/common';
import { map, type Observable } from 'rxjs';

/** Wraps a REST result as `{success: true, data}` (docs/platform.md §9); bound by `@ApiController`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_ctx: unknown, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ success: true, data: data ?? null })));
  }
}
