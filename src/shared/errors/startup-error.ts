/**
 * A reason the service cannot start that the operator can act on: the message names the cause, `fix` what to do.
 * main.ts logs it as one fatal line and exits non-zero.
 */
export class StartupError extends Error {
  constructor(
    reason: string,
    readonly fix: string,
  ) {
    super(`${reason}. Fix: ${fix}`);
    this.name = 'StartupError';
  }
}
