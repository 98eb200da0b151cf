import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import { redactSecrets } from './redact.js';

export interface RequestContext {
  requestId: string;
  companyUuid?: string;
  actor?: string;
  /** The request waited on purpose (a long-poll): its duration is not a latency. */
  longPoll?: boolean;
}

/** Per-request context (request id, company, actor) that every log line of the request carries. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Secret keys (password, key, token, authorization, cookie, headers, arguments, args) are censored at the
      // top level and one level down.
      formatters: { level: (label) => ({ level: label }), log: redactSecrets },
      messageKey: 'msg',
      mixin: () => {
        const ctx = requestContext.getStore();
        return ctx ? { ...ctx } : {};
      },
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}

/** Routes Nest's own log calls into the JSON logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, stack: trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}

/** DI token for the root pino logger. */
export const LOGGER = Symbol('LOGGER');
