export { AssignmentsModule } from './assignments.module.js';
export { parseScopeHeaders, resolveProjectScope, type ScopeRequest } from './project-scope.js';
