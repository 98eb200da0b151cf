import { Injectable } from '@nestjs/common';

/** Process lifecycle flags read by readiness: not ready before start-up completes or once shutdown begins. */
@Injectable()
export class Lifecycle {
  started = false;
  shuttingDown = false;
  private readonly shutdownHooks: Array<() => void> = [];

  /** Runs at the start of shutdown, before the HTTP server closes (SSE streams end here). */
  onShutdown(hook: () => void): void {
    this.shutdownHooks.push(hook);
  }

  beginShutdown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const hook of this.shutdownHooks) {
      try {
        hook();
      } catch {
        // a failing hook must not stop the others
      }
    }
  }
}
