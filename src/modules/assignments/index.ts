export { AssignmentsModule } from './assignments.module.js';
export { parseScopeHeaders, resolveProjectScope, resolveScope, type ScopeRequest } from './project-scope.js';
