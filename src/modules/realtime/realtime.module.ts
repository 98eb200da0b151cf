import { Module } from '@nestjs/common';
import { RealtimeController } from './realtime.controller.js';
import { StreamService } from './stream.service.js';

@Module({
  controllers: [RealtimeController],
  providers: [StreamService],
  exports: [StreamService],
})
export class RealtimeModule {}
