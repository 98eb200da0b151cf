import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE, HttpAdapterHost } from '@nestjs/core';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { ScheduleModule } from '@nestjs/schedule';
import type { Application } from 'express';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config.js';
import { Clock, SystemClock } from './clock.js';
import { HttpExceptionFilter } from './errors/http-exception.filter.js';
import { EMITTER_DEFAULTS } from './event-bus/emitter-event-bus.js';
import { EventBus } from './event-bus/event-bus.port.js';
import { InProcessEventBus } from './event-bus/in-process-event-bus.js';
import { NatsEventBus } from './event-bus/nats-event-bus.js';
import { RequestDeadlineInterceptor } from './http/request-deadline.interceptor.js';
import { RouteTable } from './http/route-table.js';
import { Lifecycle } from './lifecycle.js';
import { LOGGER } from './logging/logger.js';
import { MetricsService } from './metrics/metrics.service.js';
import { PoolLoad } from './database/pool-load.js';
import { TransactionRunner } from './database/transaction-runner.js';
import { StreamLog } from './stream-log/stream-log.js';
import { createValidationPipe } from './validation/validation.pipe.js';

export interface CoreOptions {
  config: AppConfig;
  dataSource: DataSource;
  logger: Logger;
  metrics: MetricsService;
  lifecycle: Lifecycle;
  /** The system clock unless a test moves time itself. */
  clock?: Clock;
}

/** NATS when NATS_URL is set (bootstrap hosts its transport and connects it in the background), else in-process. */
function createEventBus(config: AppConfig, emitter: EventEmitter2, logger: Logger, metrics: MetricsService): EventBus {
  if (config.natsUrl) return new NatsEventBus(config.natsUrl, config.busSubjectPrefix, logger, metrics, { interestLingerMs: config.busInterestLingerMs, emitter });
  return new InProcessEventBus((err) => logger.error({ err: String(err) }, 'event listener failed'), emitter);
}

/**
 * The kernel every module shares: configuration, database, the event emitter (`@OnEvent` handlers) and the bus on
 * it, logger, metrics, the clock, and the global HTTP pipeline.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      // The framework's event emitter (`@OnEvent`) and scheduler (background intervals, `SchedulerRegistry`).
      imports: [EventEmitterModule.forRoot(EMITTER_DEFAULTS), ScheduleModule.forRoot()],
      providers: [
        { provide: AppConfig, useValue: options.config },
        { provide: DataSource, useValue: options.dataSource },
        { provide: LOGGER, useValue: options.logger },
        { provide: EventBus, inject: [AppConfig, EventEmitter2, LOGGER, MetricsService], useFactory: createEventBus },
        { provide: MetricsService, useValue: options.metrics },
        { provide: Lifecycle, useValue: options.lifecycle },
        { provide: Clock, useValue: options.clock ?? new SystemClock() },
        {
          provide: RouteTable,
          inject: [HttpAdapterHost],
          useFactory: (host: HttpAdapterHost) => new RouteTable(() => host.httpAdapter.getInstance() as Application),
        },
        TransactionRunner,
        PoolLoad,
        StreamLog,
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: RequestDeadlineInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
      exports: [AppConfig, DataSource, LOGGER, EventBus, MetricsService, Lifecycle, Clock, RouteTable, TransactionRunner, PoolLoad, StreamLog],
    };
  }
}
