import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
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

/** `json` off a terminal (one object per line, for collectors); `pretty` for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** The format LOG_FORMAT asks for: `auto` is pretty when stdout is a terminal. */
export function logFormatOf(setting: 'auto' | LogFormat, stdoutIsTty = process.stdout.isTTY === true): LogFormat {
  return setting === 'auto' ? (stdoutIsTty ? 'pretty' : 'json') : setting;
}

/**
 * Human lines (pino-pretty, in this thread, so a fatal line is out before exit): time, level, message, then the
 * line's fields; the request context fields stay on it. Secrets are censored before formatting, as for JSON.
 */
function prettyStream(): NodeJS.WritableStream {
  return pretty({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', messageKey: 'msg', sync: true });
}

export function createLogger(level: string, destination?: NodeJS.WritableStream, format: LogFormat = 'json'): Logger {
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
    destination ?? (format === 'pretty' ? prettyStream() : pino.destination({ fd: 1, sync: false })),
  );
}

/**
 * Routes Nest's own log calls into the logger. Its `log` calls are start-up chatter (modules initialized, routes
 * mapped): info in JSON, as always; debug for a person at a terminal, who wants the summary, not sixty route lines.
 */
export class PinoNestLogger implements LoggerService {
  constructor(
    private readonly logger: Logger,
    private readonly chatter: 'info' | 'debug' = 'info',
  ) {}

  log(message: unknown, context?: string): void {
    this.logger[this.chatter]({ context }, String(message));
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
