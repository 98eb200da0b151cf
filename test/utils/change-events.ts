import { randomUUID } from 'node:crypto';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { openEventSource, type TestEventSource } from './sse.js';
import { commitChange } from './stream-frames.js';
import type { World } from './world.js';

export type ExpectedEvent = Omit<RealtimeEvent, 'companyUuid'>;

/**
 * Change events as a browser sees them: a REAL EventSource on `/api/events`, read in order.
 *
 * - `during(call)`: the events one REST call emits. Services publish synchronously after commit, before the
 *   response, but delivery to the client is asynchronous; so the call is fenced by two marker events published on
 *   the same bus, one before and one after it. What the stream delivers between the two markers is exactly what the
 *   call emitted, and "no event" is observable too.
 * - `next(n)` / `expectExactly(events)` / `expectQuiet()`: the next frames in order; "nothing else arrived" is proven
 *   with a marker published on the app's bus, which must be the very next frame.
 */
export class ChangeEvents {
  /** Frames already read (by `next` or `during`). */
  private taken = 0;

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
    this.taken = end + 1;
    return { result, events: this.stream.messages.slice(start, end).map((m) => JSON.parse(m) as RealtimeEvent) };
  }

  /** Publishes a marker and waits for it; returns its index in the stream. */
  private async fence(): Promise<number> {
    const marker: RealtimeEvent = { companyUuid: this.companyUuid, projectUuid: randomUUID(), entityType: 'task', entityUuid: randomUUID(), action: 'updated' };
    const frame = JSON.stringify(marker);
    const from = this.stream.messages.length;
    await commitChange(this.app, marker);
    const deadline = Date.now() + 5000;
    while (!this.stream.messages.includes(frame, from)) {
      if (Date.now() > deadline) throw new Error(`marker event never arrived; got ${this.stream.messages.slice(from).join(' | ')}`);
      await this.stream.waitFor(this.stream.messages.length + 1, Math.max(1, deadline - Date.now())).catch(() => undefined);
    }
    return this.stream.messages.indexOf(frame, from);
  }

  async next(n: number): Promise<RealtimeEvent[]> {
    const all = await this.stream.waitFor(this.taken + n);
    const out = all.slice(this.taken, this.taken + n).map((m) => JSON.parse(m) as RealtimeEvent);
    this.taken += n;
    return out;
  }

  /** Nothing arrived since the last read. */
  async expectQuiet(): Promise<void> {
    const marker: RealtimeEvent = { companyUuid: this.companyUuid, projectUuid: randomUUID(), entityType: 'task', entityUuid: randomUUID(), action: 'updated' };
    await commitChange(this.app, marker);
    expect(await this.next(1)).toEqual([marker]);
  }

  /** Exactly these events of the caller's company, in publication order, and nothing after them. */
  async expectExactly(events: ExpectedEvent[]): Promise<void> {
    expect(await this.next(events.length)).toEqual(events.map((e) => ({ companyUuid: this.companyUuid, ...e })));
    await this.expectQuiet();
  }

  close(): void {
    this.stream.close();
  }
}

/** The compact form tests compare: `<type> <action> <entityUuid>@<projectUuid>`. */
export const ev = (entityType: string, action: string, entityUuid: string, projectUuid: string): string => `${entityType} ${action} ${entityUuid}@${projectUuid}`;
export const compact = (events: RealtimeEvent[]): string[] => events.map((e) => ev(e.entityType, e.action, e.entityUuid, e.projectUuid));
