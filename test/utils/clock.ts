import { Clock } from '../../src/shared/clock.js';

/** A clock tests move instead of sleeping: the system time plus an offset that only grows. */
export class ManualClock extends Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
