import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IdeaTrackerService } from '../ideas/index.js';
import { TaskTrackerService } from '../tasks/index.js';
import { NoArgsDto } from '../../shared/validation/no-args.dto.js';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { MyAssignmentsDto } from './dto/assignments.dto.js';
import { resolveScope } from './project-scope.js';

/**
 * svc_get_my_assignments (docs/tool-conventions.md §3): both trackers inside the scope of the request's headers. It lives in its
 * own module because it spans ideas and tasks, and the tools module cannot import those: their tool providers
 * import the tools module (an import cycle).
 */
@Injectable()
export class AssignmentTools {
  constructor(
    private readonly db: DataSource,
    private readonly ideas: IdeaTrackerService,
    private readonly tasks: TaskTrackerService,
  ) {}

  @Tool({
    name: 'svc_get_my_assignments',
    title: 'Get my assignments',
    hint: 'R',
    description:
      'Returns your ideas and your unfinished tasks grouped by project, limited by the scoping headers. Open a task with svc_get_task or find new work with svc_get_available_tasks.',
    input: NoArgsDto,
    output: MyAssignmentsDto,
  })
  async myAssignments(_args: NoArgsDto, ctx: ToolContext): Promise<MyAssignmentsDto> {
    const { projectScope, warnings } = await resolveScope(this.db.manager, ctx.actor.companyUuid, ctx.headers);
    const ideaTracker = await this.ideas.tracker(ctx.actor, { projectScope });
    const taskTracker = await this.tasks.tracker(ctx.actor, projectScope);
    return { ideaTracker, taskTracker, ...(warnings.length ? { warnings } : {}) };
  }
}
