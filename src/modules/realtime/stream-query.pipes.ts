import { Injectable, type PipeTransform } from '@nestjs/common';
import { PlainTextError } from '../../shared/errors/plain-text-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';

/** `?projectUuid=` of the change stream: absent → null (whole company); not a uuid → plain-text 400 (docs/sse.md). */
@Injectable()
export class ProjectFilterPipe implements PipeTransform<unknown, string | null> {
  transform(value: unknown): string | null {
    if (value === undefined) return null;
    if (!isUuid(value)) throw new PlainTextError(400, 'Invalid projectUuid');
    return value.toLowerCase();
  }
}

/** `?batch=1` (or `true`) opts into `event: batch` frames; any other value, or none, keeps one frame per event. */
@Injectable()
export class BatchFlagPipe implements PipeTransform<unknown, boolean> {
  transform(value: unknown): boolean {
    return value === '1' || value === 'true';
  }
}
