import { Injectable, type PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../errors/app-error.js';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID_RE.test(v);
}

/** A path uuid that is not a uuid names no record: "<Entity> not found", never a 400 or a database error. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  constructor(private readonly entity: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw new NotFoundError(this.entity);
    return value.toLowerCase();
  }
}
