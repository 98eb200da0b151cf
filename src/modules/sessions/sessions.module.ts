import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { TasksModule } from '../tasks/index.js';
import { SessionController } from './session.controller.js';
import { SessionReactions } from './session.reactions.js';
import { SessionRepository } from './session.repository.js';
import { SessionService } from './session.service.js';
import { SessionTools } from './session.tools.js';

@Module({
  imports: [TasksModule],
  controllers: [SessionController],
  providers: [repositoryProvider(SessionRepository), SessionService, SessionTools, SessionReactions],
  exports: [SessionService],
})
export class SessionsModule {}
