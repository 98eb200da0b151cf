import { DataSource } from 'typeorm';
import { EventBus } from '../../src/shared/event-bus/event-bus.port.js';
import { changeJson, type NotificationMessage, type RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { recipientKey } from '../../src/shared/stream-log/position.js';
import { StreamLog } from '../../src/shared/stream-log/stream-log.js';

interface Host {
  get<T>(token: abstract new (...args: never[]) => T): T;
}

/**
 * What a committed mutation does with a change event, for tests that need an arbitrary one: take the company's next
 * position and log it in a transaction, then publish it with that position. Returns the position.
 */
export async function commitChange(app: Host, event: RealtimeEvent): Promise<string> {
  return (await commitChanges(app, [event]))[0];
}

/** Several change events committed in one transaction (one company), then published in one turn, in order. */
export async function commitChanges(app: Host, events: readonly RealtimeEvent[]): Promise<string[]> {
  const log = app.get(StreamLog);
  const positions = await app.get(DataSource).transaction((em) =>
    log.append(em, 'c', events.map((e) => ({ key: e.companyUuid, projectUuid: e.projectUuid, payload: changeJson(e) }))),
  );
  const bus = app.get(EventBus);
  events.forEach((e, i) => bus.publish('change', e, positions[i]));
  return positions;
}

/** The same for a notification frame (positioned per recipient). */
export async function commitFrame(app: Host, message: NotificationMessage): Promise<string> {
  const log = app.get(StreamLog);
  const [position] = await app.get(DataSource).transaction((em) =>
    log.append(em, 'n', [{ key: recipientKey(message.recipientType, message.recipientUuid), projectUuid: null, payload: JSON.stringify(message.frame) }]),
  );
  app.get(EventBus).publish('notification', message, position);
  return position;
}
