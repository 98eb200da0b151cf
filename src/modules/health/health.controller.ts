import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../shared/auth/decorators.js';
import { EventBus } from '../../shared/event-bus/event-bus.port.js';
import { Lifecycle } from '../../shared/lifecycle.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { LiveDto, ReadyDto } from './dto/health.dto.js';
import { HealthRepository } from './health.repository.js';

const DB_CHECK_TIMEOUT_MS = 2000;

@Controller()
@Public()
export class HealthController {
  constructor(
    private readonly database: HealthRepository,
    private readonly bus: EventBus,
    private readonly lifecycle: Lifecycle,
    private readonly metrics: MetricsService,
  ) {}

  @Get('health/live')
  @ApiOkResponse({ type: LiveDto, description: 'The process is up' })
  live() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOkResponse({ type: ReadyDto, description: 'Ready for traffic' })
  @ApiServiceUnavailableResponse({ type: ReadyDto, description: 'Not ready: a check is down, or starting or shutting down' })
  async ready(@Res({ passthrough: true }) res: Response) {
    const database = (await this.databaseUp()) ? 'up' : 'down';
    const busState = this.bus.status().state;
    const ok = database === 'up' && busState !== 'down' && this.lifecycle.started && !this.lifecycle.shuttingDown;
    res.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks: { database, bus: busState } };
  }

  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } })
  async metricsText(@Res() res: Response) {
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }

  private async databaseUp(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const check = this.database.ping().then(() => true);
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), DB_CHECK_TIMEOUT_MS);
      });
      return await Promise.race([check, timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}
