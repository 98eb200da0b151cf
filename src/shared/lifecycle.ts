import { Injectable } from '@nestjs/common';

/**
 * Process lifecycle flags read by readiness: not ready before start-up completes or once shutdown begins.
 * Work that must happen at shutdown lives in the framework's own hooks (`beforeApplicationShutdown`,
 * `onApplicationShutdown`) of the provider that owns it; this class only answers "are we serving?".
 */
@Injectable()
export class Lifecycle {
  started = false;
  shuttingDown = false;

  beginShutdown(): void {
    this.shuttingDown = true;
  }
}
