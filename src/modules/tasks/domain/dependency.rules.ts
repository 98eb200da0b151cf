import { ValidationError } from '../../../shared/errors/app-error.js';
import type { TaskStatus } from './task-transition.js';

/** docs/domain.md §6.4 messages. */
export const SELF_DEPENDENCY_MESSAGE = 'A task cannot depend on itself';
export const SAME_PROJECT_MESSAGE = 'Tasks must belong to the same project';
export const CYCLE_MESSAGE = 'Adding this dependency would create a cycle';

/** A prerequisite is resolved when done or closed; `to_verify` does not resolve it. */
export function isResolved(status: TaskStatus): boolean {
  return status === 'done' || status === 'closed';
}

export interface DependencyEdge {
  /** The dependent task. */
  taskUuid: string;
  /** Its prerequisite. */
  dependsOnUuid: string;
}

/**
 * The dependency edges of one project held in memory, so a batch of edits can be checked edge by edge against the
 * graph as it will be after the earlier edits of the same call.
 */
export class DependencyGraph {
  private readonly out = new Map<string, Set<string>>();

  constructor(edges: Iterable<DependencyEdge> = []) {
    for (const e of edges) this.add(e);
  }

  has(e: DependencyEdge): boolean {
    return this.out.get(e.taskUuid)?.has(e.dependsOnUuid) ?? false;
  }

  add(e: DependencyEdge): void {
    let set = this.out.get(e.taskUuid);
    if (!set) this.out.set(e.taskUuid, (set = new Set()));
    set.add(e.dependsOnUuid);
  }

  remove(e: DependencyEdge): void {
    this.out.get(e.taskUuid)?.delete(e.dependsOnUuid);
  }

  /** Whether `from` depends on `to` through one or more edges. */
  dependsOn(from: string, to: string): boolean {
    const seen = new Set<string>([from]);
    const stack = [from];
    while (stack.length) {
      for (const next of this.out.get(stack.pop()!) ?? []) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return false;
  }
}

/**
 * Checks `edge` (existence of both tasks is the caller's job) and, when it is new, adds it to the graph.
 * Returns false for an edge that already exists (a no-op, §6.4).
 */
export function addDependency(graph: DependencyGraph, edge: DependencyEdge, projectOf: (uuid: string) => string): boolean {
  if (edge.taskUuid === edge.dependsOnUuid) throw new ValidationError(SELF_DEPENDENCY_MESSAGE);
  if (projectOf(edge.taskUuid) !== projectOf(edge.dependsOnUuid)) throw new ValidationError(SAME_PROJECT_MESSAGE);
  if (graph.has(edge)) return false;
  // A -> B closes a cycle exactly when B already reaches A.
  if (graph.dependsOn(edge.dependsOnUuid, edge.taskUuid)) throw new ValidationError(CYCLE_MESSAGE);
  graph.add(edge);
  return true;
}
