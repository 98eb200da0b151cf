import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { ElaborationController } from './elaboration.controller.js';
import { ElaborationRepository } from './elaboration.repository.js';
import { ElaborationService } from './elaboration.service.js';
import { IdeaTrackerService } from './idea-tracker.service.js';
import { IdeaController } from './idea.controller.js';
import { IdeaRepository } from './idea.repository.js';
import { IdeaService } from './idea.service.js';
import { IdeaTools } from './idea.tools.js';

@Module({
  controllers: [IdeaController, ElaborationController],
  providers: [repositoryProvider(IdeaRepository), repositoryProvider(ElaborationRepository), IdeaService, ElaborationService, IdeaTrackerService, IdeaTools],
  exports: [IdeaService, ElaborationService, IdeaTrackerService],
})
export class IdeasModule {}
