import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, getSchemaPath, type ApiResponseOptions } from '@nestjs/swagger';
import { HTTP_STATUS, type ErrorCode } from '../errors/app-error.js';

type Dto = abstract new () => object;

export interface ApiRouteOptions {
  summary: string;
  /**
   * The response DTO of the route's `data` (the one the equivalent read tool's `outputSchema` comes from), or null for
   * a route that answers `data: null`.
   */
  answer: Dto | null;
  /** Creations answer 201. */
  created?: boolean;
  /** Error codes the route can answer besides UNAUTHORIZED (every cookie route can). */
  errors?: ErrorCode[];
}

/**
 * OpenAPI for one REST route: summary, success answer (the envelope around its response DTO) and error answers by
 * code. Codes sharing a status (INVALID_STATE and CONFLICT are both 409) are listed on one response, since OpenAPI
 * keys responses by status.
 */
export function ApiRoute({ summary, answer, created = false, errors = [] }: ApiRouteOptions): MethodDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ['UNAUTHORIZED' as const, ...errors]) {
    const list = byStatus.get(HTTP_STATUS[code]) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(HTTP_STATUS[code], list);
  }
  return applyDecorators(
    ApiOperation({ summary }),
    ApiEnvelope(answer, { created, description: 'Envelope `{success: true, data}` with the operation result' }),
    ...[...byStatus].map(([status, list]) => ApiResponse({ status, description: list.join(', ') })),
  );
}

/**
 * The success answer of a REST route in the JSON envelope (README "Web REST API"): `{success: true, data: <answer>}`,
 * `answer` a response DTO (referenced as a component) or null. 200, or 201 when `created`.
 */
export function ApiEnvelope(answer: Dto | null, options: Omit<ApiResponseOptions, 'schema' | 'type' | 'status'> & { created?: boolean } = {}): MethodDecorator {
  const { created = false, description = 'Envelope `{success: true, data}`', ...rest } = options;
  const data = answer ? { $ref: getSchemaPath(answer) } : { type: 'object', nullable: true, enum: [null], description: 'Always null' };
  const response = { ...rest, description, schema: envelopeSchema(data) } as ApiResponseOptions;
  return applyDecorators(...(answer ? [ApiExtraModels(answer)] : []), created ? ApiCreatedResponse(response) : ApiOkResponse(response));
}

const envelopeSchema = (data: Record<string, unknown>) => ({
  type: 'object',
  required: ['success', 'data'],
  properties: { success: { type: 'boolean', enum: [true] }, data },
});
