import type { EntityManager } from 'typeorm';
import type { EventBus } from '../../shared/event-bus/event-bus.port.js';
import type { NotificationFrame } from '../../shared/event-bus/events.js';
import type { MetricsService } from '../../shared/metrics/metrics.service.js';
import { recipientKey } from '../../shared/stream-log/position.js';
import type { StreamLog } from '../../shared/stream-log/stream-log.js';
import type { Ref } from './domain/notification.rules.js';

/**
 * The notification stream's side of a write (docs/notifications.md §2.0, §3): every write to notification rows takes its
 * recipients' positions first, stamps the rows it changes with them, logs one frame per recipient at them and
 * publishes the frames after commit.
 */

/** A frame for one recipient, once it has its position. */
export interface PositionedFrame {
  to: Ref;
  frame: NotificationFrame;
  position: string;
  /** The frame's JSON as logged (sent to the streams as it is). */
  data: string;
}

/**
 * First statement of every write to notification rows: the recipients' next positions (`recipientKey` → n), heads
 * locked in key order until commit. Every such write locks heads before it touches rows (and, through the triggers,
 * inbox rows), so concurrent writers never deadlock. The write then stamps the rows it changes with the position and
 * ends with `recordFrames`, or rolls back when it changed nothing (which gives the position back).
 */
export function reservePositions(log: StreamLog, em: EntityManager, refs: readonly Ref[]): Promise<Map<string, number>> {
  return log.reserve(
    em,
    'n',
    refs.map((r) => recipientKey(r.type, r.uuid)),
  );
}

/** The frames at the positions `reservePositions` took in the same transaction (one per recipient), logged. */
export async function recordFrames(
  log: StreamLog,
  em: EntityManager,
  frames: ReadonlyArray<{ to: Ref; frame: NotificationFrame; n: number }>,
): Promise<PositionedFrame[]> {
  const entries = frames.map((f) => ({ key: recipientKey(f.to.type, f.to.uuid), n: f.n, projectUuid: null, payload: JSON.stringify(f.frame) }));
  const positions = await log.record(em, 'n', entries);
  return frames.map((f, i) => ({ to: f.to, frame: f.frame, position: positions[i], data: entries[i].payload }));
}

/**
 * After commit: notification frames go to the recipient's subject with their positions (docs/notifications.md §3);
 * agents' frames reach the waits of their inbox (and no socket).
 */
export function publishFrames(bus: EventBus, metrics: MetricsService, frames: readonly PositionedFrame[]): void {
  for (const { to, frame, position, data } of frames) {
    bus.publish('notification', { recipientType: to.type, recipientUuid: to.uuid, frame }, position, data);
    metrics.eventsPublished.inc({ kind: 'notification' });
  }
}
