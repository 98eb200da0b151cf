import { Module } from '@nestjs/common';
import { TaskModule } from '../tasks/index.js';
import { SessionService } from './session.service.js';

@Module({
  imports: [TaskModule],
  providers: [SessionService],
  exports: [SessionService],
})
export class SessionModule {}
