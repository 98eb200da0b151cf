import { Injectable, type PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../errors/app-error.js';

import { isUuid } from './uuid.js';

export { isUuid, UUID_RE } from './uuid.js';

/** A path uuid that is not a uuid names no record: "<Entity> not found", never a 400 or a database error. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  constructor(private readonly entity: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw new NotFoundError(this.entity);
    return value.toLowerCase();
  }
}
