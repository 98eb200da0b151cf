import { Injectable, type PipeTransform } from '@nestjs/common';
import { PlainTextError } from '../../shared/errors/plain-text-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';

/** `?projectUuid=` of the change stream: absent → null (whole company); not a uuid → plain-text 400 (platform.md §6.2). */
@Injectable()
export class ProjectFilterPipe implements PipeTransform<unknown, string | null> {
  transform(value: unknown): string | null {
    if (value === undefined) return null;
    if (!isUuid(value)) throw new PlainTextError(400, 'Invalid projectUuid');
    return value.toLowerCase();
  }
}
