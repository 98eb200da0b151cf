import { Module } from '@nestjs/common';
import { ElaborationService } from './elaboration.service.js';
import { IdeaTrackerService } from './idea-tracker.service.js';
import { IdeaService } from './idea.service.js';

@Module({
  providers: [IdeaService, ElaborationService, IdeaTrackerService],
  exports: [IdeaService, ElaborationService, IdeaTrackerService],
})
export class IdeasModule {}
