import { Clock } from '../../src/shared/clock.js';

/** A clock tests move instead of sleeping: it starts at the system time and stands still until advanced. */
export class ManualClock extends Clock {
  private at = Date.now();

  now(): number {
    return this.at;
  }

  advance(ms: number): void {
    this.at += ms;
  }
}
