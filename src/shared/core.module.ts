import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE, HttpAdapterHost } from '@nestjs/core';
import type { Application } from 'express';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/config.js';
import { HttpExceptionFilter } from './errors/http-exception.filter.js';
import { EventBus } from './event-bus/event-bus.port.js';
import { EnvelopeInterceptor } from './http/envelope.interceptor.js';
import { RouteTable } from './http/route-table.js';
import { Lifecycle } from './lifecycle.js';
import { LOGGER } from './logging/logger.js';
import { MetricsService } from './metrics/metrics.service.js';
import { MutationHooks, TransactionRunner } from './database/transaction-runner.js';
import { createValidationPipe } from './validation/validation.pipe.js';

export interface CoreOptions {
  config: AppConfig;
  dataSource: DataSource;
  logger: Logger;
  bus: EventBus;
  metrics: MetricsService;
  lifecycle: Lifecycle;
}

/** The kernel every module shares: configuration, database, bus, logger, metrics, and the global HTTP pipeline. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: options.config },
        { provide: DataSource, useValue: options.dataSource },
        { provide: LOGGER, useValue: options.logger },
        { provide: EventBus, useValue: options.bus },
        { provide: MetricsService, useValue: options.metrics },
        { provide: Lifecycle, useValue: options.lifecycle },
        {
          provide: RouteTable,
          inject: [HttpAdapterHost],
          useFactory: (host: HttpAdapterHost) => new RouteTable(() => host.httpAdapter.getInstance() as Application),
        },
        MutationHooks,
        TransactionRunner,
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
      exports: [AppConfig, DataSource, LOGGER, EventBus, MetricsService, Lifecycle, RouteTable, MutationHooks, TransactionRunner],
    };
  }
}
