import 'reflect-metadata';
import { resolve } from 'node:path';
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application } from 'express';
import type { Logger } from 'pino';
import { AppModule } from './app.module.js';
import type { AppConfig } from './config/config.js';
import { openDatabase, type Database } from './database.js';
import { EventBus } from './shared/event-bus/event-bus.port.js';
import { NatsEventBus } from './shared/event-bus/nats-event-bus.js';
import type { Clock } from './shared/clock.js';
import { proxyTrust } from './shared/http/client-address.js';
import { ConnectionDrain } from './shared/http/connection-drain.js';
import { corsOptions } from './shared/http/cors.js';
import { jsonBody } from './shared/http/json-body.middleware.js';
import { requestLogging } from './shared/http/request-logging.middleware.js';
import { securityHeaders } from './shared/http/security-headers.js';
import { Lifecycle } from './shared/lifecycle.js';
import { StartupError } from './shared/errors/startup-error.js';
import { logFormatOf, PinoNestLogger } from './shared/logging/logger.js';
import { MetricsService } from './shared/metrics/metrics.service.js';
import { setupOpenApi } from './shared/http/openapi.js';

export interface RunningService {
  app: INestApplication;
  url: string;
  database: Database;
  bus: EventBus;
  lifecycle: Lifecycle;
  /** Graceful stop: end streams, stop accepting, finish in-flight requests, close bus and database. */
  stop(): Promise<void>;
}

/**
 * The one start-up summary (README "Quick start"): where it listens, which database and bus it uses, whether OAuth is
 * on, and what to run next. No credentials: a DATABASE_URL shows its host, port and database only.
 */
function startupSummary(config: AppConfig, url: string, database: Database): Record<string, string> {
  let db = 'PostgreSQL (opened by the caller)';
  if (database.embedded) db = `embedded PostgreSQL, files in ${resolve(config.dataDir)}`;
  else if (config.databaseUrl) {
    const u = new URL(config.databaseUrl);
    db = `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  }
  const bus = config.natsUrl ? `NATS ${config.natsUrl.split(',').map((s) => hostOf(s.trim())).join(', ')} (subjects ${config.busSubjectPrefix}.*)` : 'in-process (one instance)';
  const oauth = config.publicUrl ? `on, issuer ${config.publicOrigin}, tool endpoint ${config.publicUrl.replace(/\/$/, '')}/api/mcp` : 'off (set PUBLIC_URL to turn it on)';
  return { url, database: db, bus, oauth, next: 'npm run cli -- demo seed   (a demo company, user and one agent key per preset)' };
}

/** A NATS server URL without any credentials it may carry. */
function hostOf(server: string): string {
  try {
    const u = new URL(server.includes('://') ? server : `nats://${server}`);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(unparsable server)';
  }
}

/**
 * With NATS, the bus's receiving side runs as the app's microservice transport. Start-up never waits on NATS: the
 * transport's start only settles once connected, so it is not awaited; a reachable server gets a moment so the
 * first requests are relayed, an unreachable one does not block (readiness reports the bus down until it is up).
 */
async function startBus(app: INestApplication, bus: EventBus): Promise<void> {
  if (!(bus instanceof NatsEventBus)) return;
  app.connectMicroservice({ strategy: bus.transport });
  app.startAllMicroservices().catch((err: unknown) => bus.transportFailed(err));
  bus.connect();
  await bus.waitUntilUp(2000);
}

export async function startService(config: AppConfig, logger: Logger, opts: { database?: Database; clock?: Clock } = {}): Promise<RunningService> {
  const database = opts.database ?? (await openDatabase(config, logger));
  const metrics = new MetricsService();
  const lifecycle = new Lifecycle();
  let app: INestApplication;
  try {
    app = await NestFactory.create(
      AppModule.forRoot({ config, dataSource: database.dataSource, logger, metrics, lifecycle, clock: opts.clock }),
      new ExpressAdapter(),
      { bodyParser: false, logger: new PinoNestLogger(logger, logFormatOf(config.logFormat) === 'pretty' ? 'debug' : 'info'), abortOnError: false },
    );
  } catch (err) {
    if (!opts.database) await database.close();
    throw err;
  }
  const bus = app.get(EventBus);
  await startBus(app, bus);
  const express = app.getHttpAdapter().getInstance() as Application;
  express.disable('x-powered-by');
  express.set('etag', false);
  // `req.ip` is then the client address of TRUST_PROXY (docs/deploy.md, "Client address"): the socket's, or behind a
  // trusted proxy the right-most untrusted X-Forwarded-For hop.
  express.set('trust proxy', proxyTrust(config.trustProxy));
  // The first layer of all: every answer carries the security headers, /api/docs and /api/mcp included.
  app.use(securityHeaders(config));
  setupOpenApi(app);
  app.use(requestLogging(logger, metrics));
  app.enableCors(corsOptions(config.corsOrigins));
  // The JSON body parser skips `/api/mcp`, whose controller reads the body after its key guard.
  app.use(jsonBody());
  const drain = new ConnectionDrain(app.getHttpServer() as Server);
  try {
    await app.listen(config.port, config.host);
  } catch (err) {
    await app.close().catch(() => undefined);
    await bus.close().catch(() => undefined);
    if (!opts.database) await database.close().catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`port ${config.port} on ${config.host} is already in use`, 'stop the process using it, or set PORT to a free port');
    if (code === 'EACCES') throw new StartupError(`this user may not listen on port ${config.port}`, 'set PORT to a port above 1023, or grant the capability to bind low ports');
    if (code === 'EADDRNOTAVAIL') throw new StartupError(`HOST ${config.host} is not an address of this machine`, 'set HOST to 127.0.0.1, 0.0.0.0 or one of this machine\'s addresses');
    throw err;
  }
  lifecycle.started = true;
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  logger.info(startupSummary(config, url, database), 'service listening');

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Keep-alive connections stop carrying new requests first; then streams end and the server stops listening.
      drain.begin();
      lifecycle.beginShutdown();
      await app.close().catch((err: Error) => logger.warn({ err: err.message }, 'closing the HTTP server failed'));
      await bus.close().catch(() => undefined);
      if (!opts.database) await database.close();
    })();
    return stopping;
  };
  return { app, url, database, bus, lifecycle, stop };
}
