import type { Tx } from '../../shared/database/transaction-runner.js';
import { ValidationError } from '../../shared/errors/app-error.js';
import { addDependency, SELF_DEPENDENCY_MESSAGE } from './domain/dependency.rules.js';
import type { TaskEntity } from './task.entity.js';
import { requirePrerequisites } from './task.checks.js';
import { TaskRepository } from './task.repository.js';

/**
 * svc_update_task addDependsOn / removeDependsOn (docs/domain.md §6.4): removals first, then additions, each checked
 * against the graph as the earlier edits left it. Adding an existing edge or removing a missing one is a no-op.
 * Writes the edges, the activities on the edited task and `task updated` for the other end of each changed edge.
 * The caller holds the project's dependency lock (TaskRepository.lockProjectDependencies), taken before the task
 * row lock to keep lock order fixed.
 */
export async function editDependencies(tx: Tx, task: TaskEntity, add: string[], remove: string[]): Promise<{ added: string[]; removed: string[] }> {
  const tasks = new TaskRepository(tx.manager);
  if (add.includes(task.uuid)) throw new ValidationError(SELF_DEPENDENCY_MESSAGE);
  const prereqs = await requirePrerequisites(tasks, task.companyUuid, add);
  const graph = await tasks.projectGraph(task.projectUuid);
  const removed = remove.filter((dep) => {
    const edge = { taskUuid: task.uuid, dependsOnUuid: dep };
    if (!graph.has(edge)) return false;
    graph.remove(edge);
    return true;
  });
  const projectOf = (uuid: string): string => (uuid === task.uuid ? task.projectUuid : prereqs.get(uuid)!.projectUuid);
  const added = add.filter((dep) => addDependency(graph, { taskUuid: task.uuid, dependsOnUuid: dep }, projectOf));
  // An edge removed and re-added in the same call stays as it was.
  const net = { added: added.filter((d) => !removed.includes(d)), removed: removed.filter((d) => !added.includes(d)) };

  if (net.removed.length) await tasks.removeDependencies(task.uuid, net.removed);
  if (net.added.length) await tasks.addDependencies(net.added.map((d) => ({ taskUuid: task.uuid, dependsOnUuid: d })));
  for (const dep of net.added) {
    tx.record('task.dependency_added', { projectUuid: task.projectUuid, uuid: task.uuid }, { dependsOnUuid: dep });
  }
  for (const dep of net.removed) {
    tx.record('task.dependency_removed', { projectUuid: task.projectUuid, uuid: task.uuid }, { dependsOnUuid: dep });
  }
  if (net.added.length || net.removed.length) {
    tx.change('task', task.uuid, task.projectUuid, 'updated');
    // Removed prerequisites may live in another project only in theory (§6.4 keeps edges inside one); use each row's own.
    const others = await tasks.findByUuids([...net.added, ...net.removed]);
    for (const o of others) tx.change('task', o.uuid, o.projectUuid, 'updated');
  }
  return net;
}
