import { applyDecorators } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { HTTP_STATUS, type ErrorCode } from '../errors/app-error.js';

export interface ApiRouteOptions {
  summary: string;
  /** Creations answer 201. */
  created?: boolean;
  /** Error codes the route can answer besides UNAUTHORIZED (every cookie route can). */
  errors?: ErrorCode[];
}

/**
 * OpenAPI for one REST route: summary, success status and error answers by code. Codes sharing a status
 * (INVALID_STATE and CONFLICT are both 409) are listed on one response, since OpenAPI keys responses by status.
 */
export function ApiRoute({ summary, created = false, errors = [] }: ApiRouteOptions): MethodDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ['UNAUTHORIZED' as const, ...errors]) {
    const list = byStatus.get(HTTP_STATUS[code]) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(HTTP_STATUS[code], list);
  }
  return applyDecorators(
    ApiOperation({ summary }),
    ApiResponse({ status: created ? 201 : 200, description: 'Envelope `{success: true, data}` with the operation result' }),
    ...[...byStatus].map(([status, list]) => ApiResponse({ status, description: list.join(', ') })),
  );
}
