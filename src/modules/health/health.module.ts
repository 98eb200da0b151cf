import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { HealthController } from './health.controller.js';
import { HealthRepository } from './health.repository.js';

@Module({ controllers: [HealthController], providers: [repositoryProvider(HealthRepository)] })
export class HealthModule {}
