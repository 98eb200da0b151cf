import { Matches, type ValidationOptions } from 'class-validator';
import { UUID_RE } from './uuid-param.pipe.js';

/** A uuid in a REST body or query: the same pattern as path uuids, so "valid here" means "valid everywhere". */
export const IsEntityUuid = (options: ValidationOptions = {}): PropertyDecorator =>
  Matches(UUID_RE, { message: options.each ? 'each value in $property must be a uuid' : '$property must be a uuid', ...options });
