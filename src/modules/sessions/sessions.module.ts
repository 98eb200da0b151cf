import { Module } from '@nestjs/common';
import { TasksModule } from '../tasks/index.js';
import { SessionController } from './session.controller.js';
import { SessionService } from './session.service.js';
import { SessionTools } from './session.tools.js';

@Module({
  imports: [TasksModule],
  controllers: [SessionController],
  providers: [SessionService, SessionTools],
  exports: [SessionService],
})
export class SessionsModule {}
