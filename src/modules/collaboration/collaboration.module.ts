import { Module } from '@nestjs/common';
import { ActivityController } from './activity.controller.js';
import { ActivityService } from './activity.service.js';
import { CollaborationTools } from './collaboration.tools.js';
import { CommentController } from './comment.controller.js';
import { CommentService } from './comment.service.js';
import { MentionService } from './mention.service.js';
import { ReferenceController } from './reference.controller.js';
import { ReferenceService } from './reference.service.js';
import { SearchController } from './search.controller.js';
import { SearchService } from './search.service.js';

@Module({
  controllers: [CommentController, ReferenceController, ActivityController, SearchController],
  providers: [CommentService, ReferenceService, ActivityService, MentionService, SearchService, CollaborationTools],
  exports: [CommentService, ReferenceService, ActivityService, MentionService, SearchService],
})
export class CollaborationModule {}
