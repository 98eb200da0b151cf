import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { ActivityController } from './activity.controller.js';
import { ActivityRepository } from './activity.repository.js';
import { ActivityService } from './activity.service.js';
import { CollaborationTools } from './collaboration.tools.js';
import { CommentController } from './comment.controller.js';
import { CommentRepository } from './comment.repository.js';
import { CommentService } from './comment.service.js';
import { MentionService } from './mention.service.js';
import { ReferenceController } from './reference.controller.js';
import { ReferenceRepository } from './reference.repository.js';
import { ReferenceService } from './reference.service.js';
import { SearchController } from './search.controller.js';
import { SearchRepository } from './search.repository.js';
import { SearchService } from './search.service.js';

@Module({
  controllers: [CommentController, ReferenceController, ActivityController, SearchController],
  providers: [
    repositoryProvider(CommentRepository),
    repositoryProvider(ReferenceRepository),
    repositoryProvider(ActivityRepository),
    repositoryProvider(SearchRepository),
    CommentService, ReferenceService, ActivityService, MentionService, SearchService, CollaborationTools],
  exports: [CommentService, ReferenceService, ActivityService, MentionService, SearchService],
})
export class CollaborationModule {}
