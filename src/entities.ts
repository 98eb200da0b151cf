import { IDENTITY_ENTITIES } from './modules/identity/index.js';

/** Every TypeORM entity of the service. */
export const ENTITIES = [...IDENTITY_ENTITIES];
