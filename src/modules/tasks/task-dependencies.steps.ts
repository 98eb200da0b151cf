import { In, type EntityManager } from 'typeorm';
import type { Tx } from '../../shared/database/transaction-runner.js';
import { NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { addDependency, DependencyGraph, SELF_DEPENDENCY_MESSAGE } from './domain/dependency.rules.js';
import { TaskDependencyEntity, TaskEntity } from './task.entity.js';

/**
 * Serialises dependency edits inside one project, so two concurrent edits cannot each pass the cycle check and
 * together close a cycle. Taken before the task row lock (see TaskService.update) to keep lock order fixed.
 */
export async function lockProjectDependencies(em: EntityManager, projectUuid: string): Promise<void> {
  await em.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`task-dependencies:${projectUuid}`]);
}

export async function loadProjectGraph(em: EntityManager, projectUuid: string): Promise<DependencyGraph> {
  const rows: Array<{ task_uuid: string; depends_on_uuid: string }> = await em.query(
    `SELECT d.task_uuid, d.depends_on_uuid FROM task_dependency d JOIN task t ON t.uuid = d.task_uuid WHERE t.project_uuid = $1`,
    [projectUuid],
  );
  return new DependencyGraph(rows.map((r) => ({ taskUuid: r.task_uuid, dependsOnUuid: r.depends_on_uuid })));
}

/** Loads prerequisites named by uuid; any missing one (or of another company) is "Dependency task not found". */
export async function loadPrerequisites(em: EntityManager, companyUuid: string, uuids: string[]): Promise<Map<string, TaskEntity>> {
  if (!uuids.length) return new Map();
  const rows = await em.find(TaskEntity, { where: { uuid: In(uuids), companyUuid } });
  if (rows.length !== new Set(uuids).size) throw new NotFoundError('Dependency task');
  return new Map(rows.map((t) => [t.uuid, t]));
}

/**
 * svc_update_task addDependsOn / removeDependsOn (domain.md §6.4): removals first, then additions, each checked
 * against the graph as the earlier edits left it. Adding an existing edge or removing a missing one is a no-op.
 * Writes the edges, the activities on the edited task and `task updated` for the other end of each changed edge.
 */
export async function editDependencies(tx: Tx, task: TaskEntity, add: string[], remove: string[]): Promise<{ added: string[]; removed: string[] }> {
  const em = tx.manager;
  if (add.includes(task.uuid)) throw new ValidationError(SELF_DEPENDENCY_MESSAGE);
  const prereqs = await loadPrerequisites(em, task.companyUuid, add);
  const graph = await loadProjectGraph(em, task.projectUuid);
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

  if (net.removed.length) await em.delete(TaskDependencyEntity, { taskUuid: task.uuid, dependsOnUuid: In(net.removed) });
  if (net.added.length) await em.insert(TaskDependencyEntity, net.added.map((d) => ({ taskUuid: task.uuid, dependsOnUuid: d })));
  for (const dep of net.added) {
    tx.record('task.dependency_added', { projectUuid: task.projectUuid, uuid: task.uuid }, { dependsOnUuid: dep });
  }
  for (const dep of net.removed) {
    tx.record('task.dependency_removed', { projectUuid: task.projectUuid, uuid: task.uuid }, { dependsOnUuid: dep });
  }
  if (net.added.length || net.removed.length) {
    tx.change('task', task.uuid, task.projectUuid, 'updated');
    // Removed prerequisites may live in another project only in theory (§6.4 keeps edges inside one); use each row's own.
    const others = await em.find(TaskEntity, { where: { uuid: In([...net.added, ...net.removed]) } });
    for (const o of others) tx.change('task', o.uuid, o.projectUuid, 'updated');
  }
  return net;
}
