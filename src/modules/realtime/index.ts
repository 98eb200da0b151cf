export { RealtimeModule } from './realtime.module.js';
export { StreamService, MAX_UNSENT_BYTES } from './stream.service.js';
