import { Module } from '@nestjs/common';
import { IdeasModule } from '../ideas/index.js';
import { TaskModule } from '../tasks/index.js';
import { AssignmentTools } from './assignment.tools.js';

@Module({
  imports: [IdeasModule, TaskModule],
  providers: [AssignmentTools],
})
export class AssignmentsModule {}
