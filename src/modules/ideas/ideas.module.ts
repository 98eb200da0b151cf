import { Module } from '@nestjs/common';
import { ElaborationService } from './elaboration.service.js';
import { IdeaTrackerService } from './idea-tracker.service.js';
import { IdeaService } from './idea.service.js';
import { IdeaTools } from './idea.tools.js';

@Module({
  providers: [IdeaService, ElaborationService, IdeaTrackerService, IdeaTools],
  exports: [IdeaService, ElaborationService, IdeaTrackerService],
})
export class IdeasModule {}
