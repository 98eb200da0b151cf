import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiCookieAuth, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HTTP_STATUS, type ErrorCode } from '../errors/app-error.js';

/**
 * OpenAPI shorthands for the cookie-authenticated REST controllers: each route states its summary, what `data`
 * holds and the error codes it can answer in one decorator (codes grouped by HTTP status, as the filter maps them).
 */
export interface RouteDoc {
  summary: string;
  /** What the envelope's `data` holds, e.g. "TaskRecord". */
  returns: string;
  errors?: readonly ErrorCode[];
  /** Success status: 201 for creations (Nest's default for POST), 200 otherwise. */
  status?: 200 | 201;
}

export const ApiSessionController = (tag: string): ClassDecorator =>
  applyDecorators(ApiTags(tag), ApiCookieAuth('session'), ApiResponse({ status: 401, description: 'UNAUTHORIZED: no valid session cookie' }));

export function ApiRoute(doc: RouteDoc): MethodDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of doc.errors ?? []) byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ApiOperation({ summary: doc.summary }),
    ApiResponse({ status: doc.status ?? 200, description: `{success: true, data: ${doc.returns}}` }),
    ...[...byStatus].map(([status, codes]) => ApiResponse({ status, description: codes.join(', ') })),
  );
}

/** A POST that changes a record without creating one (claim, submit, approve …): answers 200, not 201. */
export const ApiAction = (doc: Omit<RouteDoc, 'status'>): MethodDecorator => applyDecorators(HttpCode(200), ApiRoute({ ...doc, status: 200 }));

/** A `:uuid`-style path parameter naming a record of the caller's company. */
export const ApiUuidParam = (name: string, entity: string, description = `${entity} uuid (404 when missing or of another company)`): MethodDecorator & ClassDecorator =>
  ApiParam({ name, description, schema: { type: 'string', format: 'uuid' } });
