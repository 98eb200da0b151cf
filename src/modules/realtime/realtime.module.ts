import { Module } from '@nestjs/common';
import { RealtimeController } from './realtime.controller.js';
import { StreamLimitGuard } from './stream-limit.guard.js';
import { StreamService } from './stream.service.js';

@Module({
  controllers: [RealtimeController],
  providers: [StreamService, StreamLimitGuard],
  exports: [StreamService],
})
export class RealtimeModule {}
