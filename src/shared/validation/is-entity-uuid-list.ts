import { Matches } from 'class-validator';
import { eachItem } from './each-item.js';
import { isUuid, UUID_RE } from './uuid-param.pipe.js';

/** A list of uuids in a body or query: every entry matches the pattern `IsEntityUuid` checks for one. */
export const IsEntityUuidList = (): PropertyDecorator => Matches(UUID_RE, eachItem(isUuid, { message: 'each value in $property must be a uuid' }));
