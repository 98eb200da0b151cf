/**
 * The time the windows of abuse limits and the pruning of OAuth clients are measured with (login throttling,
 * registration limit, stale clients). A port (docs/architecture.md "Conventions": the abstract class is the type and the DI token)
 * because tests move it instead of sleeping; the service runs on the system clock.
 */
export abstract class Clock {
  /** Milliseconds since the epoch. */
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
