export { RealtimeModule } from './realtime.module.js';
export { SseHub, MAX_UNSENT_BYTES } from './sse-hub.js';
