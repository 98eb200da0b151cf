import { createParamDecorator, Injectable, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { getMetadataStorage } from 'class-validator';
import { ValidationError, type FieldIssue } from '../../../shared/errors/app-error.js';
import { findUnstorableText } from '../../../shared/validation/storable-text.js';
import { createValidationPipe } from '../../../shared/validation/validation.pipe.js';

export interface InboxBodyOptions {
  /** The body may be left out (read-all): then it is `{}`. */
  optional?: boolean;
  /** What becomes of fields the DTO does not declare: ignored, or each refused as "Unknown field". */
  unknownFields: 'ignore' | 'refuse';
}

const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields a DTO declares: those with a check (every field of these DTOs has one). */
function declaredFields(dto: new () => object): Set<string> {
  return new Set(getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).map((m) => m.propertyName));
}

/**
 * The body rules of docs/notifications.md §2.1 around the REST validation of the DTO: text PostgreSQL cannot store is
 * refused first (as the global pipe does for every body); a body that is not a JSON object is "Request body must be a
 * JSON object"; fields the DTO does not declare are ignored or refused ("Unknown field"); then the REST pipe checks and
 * transforms the declared ones. A body refused for several fields lists them in the body's key order.
 */
@Injectable()
export class InboxBodyPipe<T extends object> implements PipeTransform<unknown, Promise<T>> {
  private readonly rest = createValidationPipe();
  private readonly declared: Set<string>;

  constructor(
    private readonly dto: new () => T,
    private readonly options: InboxBodyOptions,
  ) {
    this.declared = declaredFields(dto);
  }

  async transform(raw: unknown): Promise<T> {
    const bad = findUnstorableText(raw);
    if (bad) throw new ValidationError('Invalid input', [{ field: bad.path, message: bad.message }]);
    const body = raw === undefined && this.options.optional ? {} : raw;
    if (!isJsonObject(body)) throw new ValidationError('Request body must be a JSON object', [{ field: '', message: 'must be a JSON object' }]);
    const keys = Object.keys(body);
    const issues: FieldIssue[] =
      this.options.unknownFields === 'refuse' ? keys.filter((k) => !this.declared.has(k)).map((field) => ({ field, message: 'Unknown field' })) : [];
    const known = Object.fromEntries(keys.filter((k) => this.declared.has(k)).map((k) => [k, body[k]]));
    let value: T | undefined;
    try {
      value = (await this.rest.transform(known, { type: 'body', metatype: this.dto, data: '' })) as T;
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      issues.push(...((err.extra.details ?? []) as FieldIssue[]));
    }
    if (issues.length) throw new ValidationError('Invalid input', issues.sort((a, b) => keys.indexOf(a.field) - keys.indexOf(b.field)));
    return value!;
  }
}

/**
 * A body of the inbox routes, read as `dto` by InboxBodyPipe. A parameter decorator of its own rather than `@Body()`:
 * the global pipe would check the DTO first and refuse an unknown field with its own message; it leaves a custom
 * parameter to its pipes. Document the route's body with `@ApiBody({ type: dto })`.
 */
export const InboxBody = <T extends object>(dto: new () => T, options: InboxBodyOptions): ParameterDecorator =>
  createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<Request>().body)(undefined, new InboxBodyPipe(dto, options));
