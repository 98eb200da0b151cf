import { Module } from '@nestjs/common';
import { ActivityService } from './activity.service.js';
import { CommentService } from './comment.service.js';
import { ReferenceService } from './reference.service.js';
import { SearchService } from './search.service.js';

@Module({
  providers: [CommentService, ReferenceService, ActivityService, SearchService],
  exports: [CommentService, ReferenceService, ActivityService, SearchService],
})
export class CollaborationModule {}
