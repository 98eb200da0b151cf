import { Module } from '@nestjs/common';
import { TaskModule } from '../tasks/index.js';
import { SessionService } from './session.service.js';
import { SessionTools } from './session.tools.js';

@Module({
  imports: [TaskModule],
  providers: [SessionService, SessionTools],
  exports: [SessionService],
})
export class SessionModule {}
