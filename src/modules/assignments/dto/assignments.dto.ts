import { Prop } from '../../../shared/validation/response-fields.js';
import type { IdeaTracker } from '../../ideas/index.js';
import type { TaskTracker } from '../../tasks/index.js';

/** svc_get_my_assignments: both trackers, keyed by project uuid (each `{name, ideas}` / `{name, tasks}`). */
export class MyAssignmentsDto {
  @Prop.object({ description: 'By project uuid: {name, ideas}' }) ideaTracker: IdeaTracker;
  @Prop.object({ description: 'By project uuid: {name, tasks}' }) taskTracker: TaskTracker;
  @Prop.boolean({ optional: true, description: 'Present (true) when rows were dropped to fit the result size cap' }) truncated?: true;
  @Prop.strings({ optional: true, description: 'About the scoping headers, e.g. a project that does not exist' }) warnings?: string[];
}
