import { Module } from '@nestjs/common';
import { ElaborationController } from './elaboration.controller.js';
import { ElaborationService } from './elaboration.service.js';
import { IdeaTrackerService } from './idea-tracker.service.js';
import { IdeaController } from './idea.controller.js';
import { IdeaService } from './idea.service.js';
import { IdeaTools } from './idea.tools.js';

@Module({
  controllers: [IdeaController, ElaborationController],
  providers: [IdeaService, ElaborationService, IdeaTrackerService, IdeaTools],
  exports: [IdeaService, ElaborationService, IdeaTrackerService],
})
export class IdeasModule {}
