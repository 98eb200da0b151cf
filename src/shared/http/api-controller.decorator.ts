import { applyDecorators, Controller, UseInterceptors } from '@nestjs/common';
import { EnvelopeInterceptor } from './envelope.interceptor.js';

/**
 * A REST controller: its results go out in the JSON envelope. Bound per controller rather than app-wide so the
 * routes that write their own bodies (health, metrics, the SSE streams, the tool endpoint) carry no interceptor at
 * all: on a stream Nest's interceptor chain stays allocated for the connection's lifetime (BENCHMARKS.md "SSE").
 */
export const ApiController = (path: string): ClassDecorator => applyDecorators(Controller(path), UseInterceptors(EnvelopeInterceptor));
