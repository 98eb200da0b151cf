import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { liftRequestDeadline } from '../../shared/http/request-deadline.interceptor.js';
import { formatPosition, recipientKey } from '../../shared/stream-log/position.js';
import { StreamLog } from '../../shared/stream-log/stream-log.js';
import { DELTA_MAX_BYTES, DELTA_MAX_RECORDS, unknownPosition, type PositionInput } from './domain/inbox.rules.js';
import { InboxWaits } from './inbox-waits.js';
import { toNotificationRecord, type NotificationRecord, type NotificationRow } from './notification.records.js';
import { NotificationRepository, recipientOf, type Recipient } from './notification.repository.js';

/** A delta request (docs/notifications.md §2.0): the list filters and paging do not apply. */
export interface DeltaQuery {
  after: PositionInput;
  waitSeconds: number | null;
}

/** A delta: records changed after the caller's position, in their current state, and the position to pass next. */
export interface InboxDelta {
  notifications: NotificationRecord[];
  position: string;
  unreadCount: number;
}

/** One read of a delta: the answer's parts, by counter, and the recipient's head in the same snapshot. */
interface DeltaRead {
  notifications: NotificationRecord[];
  position: number;
  unreadCount: number;
  head: number;
}

/**
 * Deltas and waits of the inbox (docs/notifications.md §2.0; README "The agent inbox"): the caller's records changed after
 * a position, oldest position first, marking nothing. With `waitSeconds` a delta answers as soon as it is not empty —
 * a frame for the caller on any instance wakes it — or empty at the deadline or at shutdown; no database connection
 * is held while it waits, and the request deadline is lifted for it.
 */
@Injectable()
export class InboxDeltaService {
  constructor(
    private readonly notifications: NotificationRepository,
    private readonly log: StreamLog,
    private readonly bus: EventBus,
    private readonly waits: InboxWaits,
  ) {}

  /**
   * The delta after `q.after`; `signal` ends a wait early (the caller went away). An unknown position (another log's,
   * or ahead of the caller's head) is VALIDATION_ERROR on `after`; a wait beyond the recipient's limit RATE_LIMITED.
   */
  async delta(actor: Actor, q: DeltaQuery, signal?: AbortSignal): Promise<InboxDelta> {
    const r = recipientOf(actor);
    if (q.after.epoch !== (await this.log.epoch())) throw unknownPosition('after');
    if (q.waitSeconds === null) return this.answer(await this.read(r, q.after.n, true));
    const release = this.waits.acquire(r.type, r.uuid);
    liftRequestDeadline();
    // Watching starts before the first read: a change committed between the read and the wait still wakes it.
    const watch = this.waits.watch(r.type, r.uuid);
    // A caller that went away stops waiting (its slot is given back at once).
    const onAbort = (): void => watch.end();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    try {
      const deadline = Date.now() + q.waitSeconds * 1000;
      // Frames from other instances reach this one from here on (the recipient's subscription is active): read after it.
      await watch.ready;
      let d = await this.read(r, q.after.n, true);
      while (!d.notifications.length) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        const outcome = await watch.next(d.head, left);
        if (outcome === 'shutdown') break;
        // At the deadline, one last look only when frames may have been lost (the channel was down meanwhile).
        if (outcome === 'timeout' && !watch.busTroubled && this.bus.status().state !== 'down') break;
        d = await this.read(r, q.after.n, false);
        if (outcome === 'timeout') break;
      }
      return this.answer(d);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      watch.close();
      release();
    }
  }

  private async answer(d: DeltaRead): Promise<InboxDelta> {
    return { notifications: d.notifications, position: formatPosition(await this.log.epoch(), d.position), unreadCount: d.unreadCount };
  }

  /**
   * One delta read: whole positions, oldest first, up to DELTA_MAX_RECORDS records and DELTA_MAX_BYTES — except that
   * the first position is always answered whole (a bulk change bigger than that is read on its own), so a caller
   * always advances. `position` is the last position covered completely: the head when everything after `after`
   * fitted.
   */
  private async read(r: Recipient, after: number, checkAfter: boolean): Promise<DeltaRead> {
    const rows = await this.notifications.delta(r, recipientKey(r.type, r.uuid), after, DELTA_MAX_RECORDS + 1);
    const head = Number(rows[0]?.head ?? 0);
    const unreadCount = rows[0]?.unreadCount ?? 0;
    if (checkAfter && after > head) throw unknownPosition('after');
    const found = rows.filter((row) => row.uuid !== null && row.uuid !== undefined) as NotificationRow[];
    if (!found.length) return { notifications: [], position: head, unreadCount, head };

    const complete = found.length <= DELTA_MAX_RECORDS;
    const groups: NotificationRow[][] = [];
    for (const row of found) {
      const g = groups[groups.length - 1];
      if (g && g[0].position === row.position) g.push(row);
      else groups.push([row]);
    }
    // The last group of a cut read may continue beyond it.
    if (!complete) groups.pop();
    if (!groups.length) {
      const n = Number(found[0].position);
      const whole = await this.notifications.rowsAt(r, n);
      return { notifications: whole.map(toNotificationRecord), position: n, unreadCount, head };
    }
    const out: NotificationRecord[] = [];
    let bytes = 0;
    let position = after;
    let taken = 0;
    for (const g of groups) {
      const records = g.map(toNotificationRecord);
      const size = records.reduce((sum, rec) => sum + Buffer.byteLength(JSON.stringify(rec)), 0);
      if (out.length && (out.length + records.length > DELTA_MAX_RECORDS || bytes + size > DELTA_MAX_BYTES)) break;
      out.push(...records);
      bytes += size;
      position = Number(g[0].position);
      taken += 1;
    }
    return { notifications: out, position: complete && taken === groups.length ? head : position, unreadCount, head };
  }
}
