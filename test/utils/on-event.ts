import { Logger } from '@nestjs/common';
import { EVENT_LISTENER_METADATA, EventEmitter2, type OnEventOptions } from '@nestjs/event-emitter';
import { SessionReactions } from '../../src/modules/sessions/session.reactions.js';
import { EMITTER_DEFAULTS } from '../../src/shared/event-bus/emitter-event-bus.js';

interface ListenerMetadata {
  event: string;
  options?: OnEventOptions;
}

/**
 * Binds the `@OnEvent` methods of hand-built providers to an emitter the way the event-emitter module's loader does
 * at application bootstrap (same metadata, same error rule: logged unless `suppressErrors: false`), for integration
 * tests that build services without a Nest application.
 */
export function bindOnEvent(emitter: EventEmitter2, ...instances: object[]): void {
  const logger = new Logger('Event');
  for (const instance of instances) {
    const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(proto)) {
      const method = proto[key];
      if (typeof method !== 'function') continue;
      const listeners = Reflect.getMetadata(EVENT_LISTENER_METADATA, method) as ListenerMetadata[] | undefined;
      for (const { event, options } of listeners ?? []) {
        emitter.on(event, async (...args: unknown[]) => {
          try {
            return await (method as (...a: unknown[]) => unknown).apply(instance, args);
          } catch (err) {
            if (options?.suppressErrors === false) throw err;
            logger.error((err as Error).message, (err as Error).stack);
          }
        });
      }
    }
  }
}

/**
 * An emitter with the in-transaction reactions bound (shared/events/tx-events.ts: the sessions module's), for
 * hand-built services whose mutations dispatch them.
 */
export function reactionsEmitter(): EventEmitter2 {
  const emitter = new EventEmitter2(EMITTER_DEFAULTS);
  bindOnEvent(emitter, new SessionReactions());
  return emitter;
}
