import { Module } from '@nestjs/common';
import { ActivityService } from './activity.service.js';
import { CollaborationTools } from './collaboration.tools.js';
import { CommentService } from './comment.service.js';
import { ReferenceService } from './reference.service.js';
import { SearchService } from './search.service.js';

@Module({
  providers: [CommentService, ReferenceService, ActivityService, SearchService, CollaborationTools],
  exports: [CommentService, ReferenceService, ActivityService, SearchService],
})
export class CollaborationModule {}
