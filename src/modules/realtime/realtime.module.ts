import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/config.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { Lifecycle } from '../../shared/lifecycle.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { RealtimeController } from './realtime.controller.js';
import { SseHub } from './sse-hub.js';

@Module({
  controllers: [RealtimeController],
  providers: [
    {
      provide: SseHub,
      inject: [EventBus, MetricsService, AppConfig, Lifecycle],
      useFactory: (bus: EventBus, metrics: MetricsService, config: AppConfig, lifecycle: Lifecycle) => {
        const hub = new SseHub(bus, metrics, config.sseHeartbeatMs);
        lifecycle.onShutdown(() => hub.close());
        return hub;
      },
    },
  ],
  exports: [SseHub],
})
export class RealtimeModule {}
