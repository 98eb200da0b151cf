import { blockedHints, invalidStateHints, type BlockerLike } from './state-hints.js';

/**
 * Errors are codes, not HTTP: services throw these; the REST filter and the tool layer map them.
 * `extra` carries the code-specific fields of docs/tool-conventions.md §1.4 (blockers, acceptanceSummary, issues, details).
 */
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'BAD_REQUEST'
  | 'VALIDATION_ERROR'
  | 'INVALID_STATE'
  | 'BLOCKED'
  | 'CRITERIA_NOT_PASSED'
  | 'PROPOSAL_INVALID'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BAD_REQUEST: 400,
  VALIDATION_ERROR: 400,
  INVALID_STATE: 409,
  BLOCKED: 409,
  CRITERIA_NOT_PASSED: 409,
  PROPOSAL_INVALID: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
};

export interface FieldIssue {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return HTTP_STATUS[this.code];
  }
}

export class NotFoundError extends AppError {
  /** `entity` is the display name of docs/tool-conventions.md §1.4, e.g. "Task", "Project group". */
  constructor(entity: string) {
    super('NOT_FOUND', `${entity} not found`);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required') {
    super('UNAUTHORIZED', message);
  }
}

/** `hints` (docs/tool-conventions.md §1.5) are derived from the message, which names the entity, its status and the operation. */
export class InvalidStateError extends AppError {
  constructor(message: string) {
    const hints = invalidStateHints(message);
    super('INVALID_STATE', message, hints.length ? { hints } : {});
  }
}

/** A move into in_progress refused on unresolved prerequisites: `blockers`, then `hints` naming their next steps. */
export class BlockedError extends AppError {
  constructor(message: string, blockers: readonly BlockerLike[], opts: { forceable?: boolean } = {}) {
    super('BLOCKED', message, { blockers, hints: blockedHints(blockers, opts) });
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: FieldIssue[]) {
    super('VALIDATION_ERROR', message, details ? { details } : {});
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super('BAD_REQUEST', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service unavailable') {
    super('SERVICE_UNAVAILABLE', message);
  }
}

const DB_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
/** Also 57014 (a statement cancelled by `statement_timeout`) and 25P03 (`idle_in_transaction_session_timeout`). */
const DB_DOWN_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '25P03', '08000', '08001', '08003', '08004', '08006', '53300', '3D000']);

/**
 * Messages of a lost or refused connection. "Query runner already released" (a query through the runner) and
 * "…provided by a query runner was already released" (a query through its entity manager) are TypeORM's answers to
 * the next statement of a transaction whose connection failed: its PostgreSQL runner releases itself on the
 * connection's `error` event (the server went away mid-transaction); nothing else releases it before the transaction
 * callback returns. "Query read timeout" is the client-side query timeout: the server did not answer at all.
 */
const DB_DOWN_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Connection refused|the database system is (starting up|shutting down|in recovery mode)|is not currently accepting connections|terminating connection due to administrator command|Client has encountered a connection error|Cannot use a pool after calling end|Query runner already released|query runner was already released|Query read timeout/i;

/**
 * True for errors that mean "the database cannot be reached right now" rather than a bug — including pg-pool's
 * "timeout exceeded when trying to connect": no connection could be had within the pool's timeout (every one busy
 * under overload, or the server not answering).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const o = e as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && (DB_DOWN_CODES.has(o.code) || DB_DOWN_SQLSTATES.has(o.code))) return true;
    if (typeof o.message === 'string' && DB_DOWN_MESSAGE.test(o.message)) {
      return true;
    }
    e = o.driverError ?? o.cause;
  }
  return false;
}
