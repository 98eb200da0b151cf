import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { Lifecycle } from '../../shared/lifecycle.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { NotificationService } from './notification.service.js';

/** How often every instance looks for the next due snooze (snoozes end at least 3 minutes ahead, so none is missed). */
export const SNOOZE_SCAN_MS = 15_000;
/** Due notifications woken per pass (the next pass follows at once while more are due). */
const WAKE_BATCH = 500;

/**
 * Brings snoozed notifications back when their time comes (docs/notifications.md §2.0). Every instance scans for the
 * next due time every SNOOZE_SCAN_MS and sets a timer for it when it falls before the next scan; the wake-up itself is
 * a write per recipient that only matches rows still snoozed and due, so when several instances wake the same rows,
 * exactly one changes them and publishes the `new_notification` frame.
 */
@Injectable()
export class SnoozeWaker implements OnApplicationBootstrap {
  private scanTimer: NodeJS.Timeout | null = null;
  private dueTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly notifications: NotificationService,
    @Inject(LOGGER) private readonly logger: Logger,
    lifecycle: Lifecycle,
  ) {
    lifecycle.onShutdown(() => this.stop());
  }

  onApplicationBootstrap(): void {
    this.scanTimer = setInterval(() => void this.scan(), SNOOZE_SCAN_MS);
    this.scanTimer.unref();
    void this.scan();
  }

  stop(): void {
    this.stopped = true;
    if (this.scanTimer) clearInterval(this.scanTimer);
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.scanTimer = this.dueTimer = null;
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

  private arm(at: number): void {
    if (this.stopped) return;
    const delay = at - Date.now();
    if (delay > SNOOZE_SCAN_MS) return;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = setTimeout(() => void this.wakeDue(), Math.max(0, delay));
    this.dueTimer.unref();
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
