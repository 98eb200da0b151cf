import { randomUUID } from 'node:crypto';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { openEventSource, type TestEventSource } from './sse.js';
import type { World } from './world.js';

/**
 * The change events one REST call emits, read from a REAL EventSource on `/api/events`. Services publish
 * synchronously after commit, before the response, but delivery to the client is asynchronous; so the call is
 * fenced by two marker events published on the same bus, one before and one after it. What the stream delivers
 * between the two markers is exactly what the call emitted, and "no event" is observable too.
 */
export class ChangeEvents {
  private constructor(
    private readonly app: World,
    private readonly stream: TestEventSource,
    private readonly companyUuid: string,
  ) {}

  static async open(app: World, cookie: string, companyUuid: string): Promise<ChangeEvents> {
    const stream = openEventSource(`${app.url}/api/events`, cookie);
    await stream.opened;
    return new ChangeEvents(app, stream, companyUuid);
  }

  /** Runs `call` and returns its result with the events it caused, in delivery order. */
  async during<T>(call: () => Promise<T>): Promise<{ result: T; events: RealtimeEvent[] }> {
    const start = (await this.fence()) + 1;
    const result = await call();
    const end = await this.fence();
    return { result, events: this.stream.messages.slice(start, end).map((m) => JSON.parse(m) as RealtimeEvent) };
  }

  /** Publishes a marker and waits for it; returns its index in the stream. */
  private async fence(): Promise<number> {
    const marker: RealtimeEvent = { companyUuid: this.companyUuid, projectUuid: randomUUID(), entityType: 'task', entityUuid: randomUUID(), action: 'updated' };
    const frame = JSON.stringify(marker);
    const from = this.stream.messages.length;
    this.app.get(EventBus).publish('change', marker);
    const deadline = Date.now() + 5000;
    while (!this.stream.messages.includes(frame, from)) {
      if (Date.now() > deadline) throw new Error(`marker event never arrived; got ${this.stream.messages.slice(from).join(' | ')}`);
      await this.stream.waitFor(this.stream.messages.length + 1, Math.max(1, deadline - Date.now())).catch(() => undefined);
    }
    return this.stream.messages.indexOf(frame, from);
  }

  close(): void {
    this.stream.close();
  }
}

/** The compact form tests compare: `<type> <action> <entityUuid>@<projectUuid>`. */
export const ev = (entityType: string, action: string, entityUuid: string, projectUuid: string): string => `${entityType} ${action} ${entityUuid}@${projectUuid}`;
export const compact = (events: RealtimeEvent[]): string[] => events.map((e) => ev(e.entityType, e.action, e.entityUuid, e.projectUuid));
