import { Matches } from 'class-validator';
import { UUID_RE } from './uuid-param.pipe.js';

/** A uuid in a body or query, with the same pattern the path pipe and the services use. */
export const IsEntityUuid = (): PropertyDecorator => Matches(UUID_RE, { message: '$property must be a uuid' });
