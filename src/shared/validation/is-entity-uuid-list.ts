import { Matches } from 'class-validator';
import { UUID_RE } from './uuid-param.pipe.js';

/** A list of uuids in a body or query: every entry matches the pattern `IsEntityUuid` checks for one. */
export const IsEntityUuidList = (): PropertyDecorator => Matches(UUID_RE, { each: true, message: 'each value in $property must be a uuid' });
