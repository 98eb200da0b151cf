import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval, SchedulerRegistry } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { LOGGER } from '../../shared/logging/logger.js';
import { NotificationService } from './notification.service.js';

/** How often every instance looks for the next due snooze (snoozes end at least 3 minutes ahead, so none is missed). */
export const SNOOZE_SCAN_MS = 15_000;
/** Due notifications woken per pass (the next pass follows at once while more are due). */
const WAKE_BATCH = 500;

/** The scheduler's names of the scan and of the timer armed for the next due snooze. */
const SCAN = 'snooze-scan';
const DUE = 'snooze-due';

/**
 * Brings snoozed notifications back when their time comes (docs/notifications.md §2.0). Every instance scans for the
 * next due time every SNOOZE_SCAN_MS (the framework's scheduler) and arms a timeout for it when it falls before the
 * next scan; the wake-up itself is a write per recipient that only matches rows still snoozed and due, so when
 * several instances wake the same rows, exactly one changes them and publishes the `new_notification` frame.
 */
@Injectable()
export class SnoozeWaker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly notifications: NotificationService,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    void this.scan();
  }

  /** Shutdown begins: no more scans or wake-ups while the database closes. */
  beforeApplicationShutdown(): void {
    this.stop();
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduler.doesExist('interval', SCAN)) this.scheduler.deleteInterval(SCAN);
    if (this.scheduler.doesExist('timeout', DUE)) this.scheduler.deleteTimeout(DUE);
  }

  @Interval(SCAN, SNOOZE_SCAN_MS)
  onScanInterval(): void {
    void this.scan();
  }

  /** Looks for the next due time; wakes what is due now, or arms a timer for what falls due before the next scan. */
  async scan(): Promise<void> {
    if (this.stopped) return;
    try {
      const due = await this.notifications.nextSnoozeDue();
      if (due) this.arm(due.getTime());
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'snooze scan failed');
    }
  }

  /** A timeout for the next due time when it falls before the next scan (a dynamic timeout of the scheduler). */
  private arm(at: number): void {
    if (this.stopped) return;
    const delay = at - Date.now();
    if (delay > SNOOZE_SCAN_MS) return;
    if (this.scheduler.doesExist('timeout', DUE)) this.scheduler.deleteTimeout(DUE);
    const timer = setTimeout(() => {
      if (this.scheduler.doesExist('timeout', DUE)) this.scheduler.deleteTimeout(DUE);
      void this.wakeDue();
    }, Math.max(0, delay));
    timer.unref();
    this.scheduler.addTimeout(DUE, timer);
  }

  /** Wakes every due notification, recipient by recipient (one frame each); safe to run on several instances. */
  wakeDue(): Promise<void> {
    this.running ??= this.wakeAll().finally(() => (this.running = null));
    return this.running;
  }

  private async wakeAll(): Promise<void> {
    try {
      for (;;) {
        if (this.stopped) return;
        const { due, woke } = await this.notifications.wakeDue(WAKE_BATCH);
        // Nothing due; or everything found was woken by another instance meanwhile: it will find the rest.
        if (!due || !woke) break;
      }
      await this.scan();
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'snooze wake-up failed');
    }
  }
}
