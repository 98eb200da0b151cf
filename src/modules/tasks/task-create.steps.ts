import { randomUUID } from 'node:crypto';
import type { Tx } from '../../shared/database/transaction-runner.js';
import { InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { isUuid } from '../../shared/validation/uuid-param.pipe.js';
import { insertReferences, validateReference, type ValidReference } from '../collaboration/index.js';
import { normalizeCriteria, type NormalizedCriterion } from './domain/criteria.js';
import { addDependency, DependencyGraph } from './domain/dependency.rules.js';
import { cleanTitle, distinctUuids } from './domain/task-fields.js';
import type { CreateTasksArgsDto, NewTaskDto } from './dto/task.dto.js';
import type { Priority } from './task.entity.js';
import { requirePrerequisites, requireProject } from './task.checks.js';
import { TaskRepository } from './task.repository.js';

/** The arguments of svc_create_tasks (its REST body plus the project of the path), checked by the DTO. */
export type NewTaskInput = NewTaskDto;
export type CreateTasksInput = CreateTasksArgsDto;

interface PreparedTask {
  uuid: string;
  title: string;
  description: string;
  priority: Priority;
  storyPoints: number | null;
  criteria: NormalizedCriterion[];
  draftUuid: string | null;
  dependsOnDrafts: string[];
  dependsOnTasks: string[];
  references: ValidReference[];
}

/** Rules of svc_create_tasks beyond the arguments' shape, checked for every item before anything is read or written. */
export function prepareTasks(items: readonly NewTaskInput[]): PreparedTask[] {
  const prepared = items.map((raw): PreparedTask => {
    const title = cleanTitle(raw.title);
    const prefix = `Task "${title}": `;
    return {
      uuid: randomUUID(),
      title,
      description: raw.description ?? '',
      priority: raw.priority ?? 'medium',
      storyPoints: raw.storyPoints ?? null,
      criteria: normalizeCriteria(raw.acceptanceCriteriaItems, prefix),
      draftUuid: raw.draftUuid ?? null,
      dependsOnDrafts: [...new Set(raw.dependsOnDraftUuids ?? [])],
      dependsOnTasks: distinctUuids(raw.dependsOnTaskUuids),
      references: (raw.references ?? []).map((r) => validateReference(r)),
    };
  });
  const byDraft = new Map<string, PreparedTask>();
  for (const t of prepared) {
    if (t.draftUuid === null) continue;
    if (byDraft.has(t.draftUuid)) throw new ValidationError(`Duplicate draftUuid "${t.draftUuid}"`);
    byDraft.set(t.draftUuid, t);
  }
  // Batch edges only: nothing outside the batch can depend on a new task, so a cycle must lie inside the batch.
  const graph = new DependencyGraph();
  for (const t of prepared) {
    for (const d of t.dependsOnDrafts) {
      const target = byDraft.get(d);
      if (!target) throw new ValidationError(`Task "${t.title}": Unknown draftUuid "${d}"`);
      addDependency(graph, { taskUuid: t.uuid, dependsOnUuid: target.uuid }, () => 'batch');
    }
  }
  return prepared.map((t) => ({ ...t, dependsOnDrafts: t.dependsOnDrafts.map((d) => byDraft.get(d)!.uuid) }));
}

/** svc_create_tasks inside its transaction; returns the new task uuids in input order. */
export async function createTasksWithin(tx: Tx, input: CreateTasksInput, prepared: PreparedTask[]): Promise<string[]> {
  const tasks = new TaskRepository(tx.manager);
  const actor = tx.actor;
  const project = await requireProject(tasks, actor.companyUuid, input.projectUuid);
  if (input.proposalUuid != null) {
    // A proposal of another project is as unknown as a missing one (docs/tool-conventions.md §5.2).
    const status = isUuid(input.proposalUuid) ? await tasks.proposalStatus(actor.companyUuid, project.uuid, input.proposalUuid) : null;
    if (status === null) throw new NotFoundError('Proposal');
    if (status !== 'approved') throw new InvalidStateError(`Proposal is ${status}; create tasks requires approved`);
  }
  const prereqs = await requirePrerequisites(tasks, actor.companyUuid, [...new Set(prepared.flatMap((t) => t.dependsOnTasks))]);
  const graph = new DependencyGraph();
  const projectOf = (uuid: string): string => prereqs.get(uuid)?.projectUuid ?? project.uuid;
  for (const t of prepared) for (const d of t.dependsOnTasks) addDependency(graph, { taskUuid: t.uuid, dependsOnUuid: d }, projectOf);

  for (const t of prepared) {
    await tasks.insert({
      uuid: t.uuid,
      companyUuid: actor.companyUuid,
      projectUuid: project.uuid,
      proposalUuid: input.proposalUuid ?? null,
      title: t.title,
      description: t.description,
      status: 'open',
      priority: t.priority,
      storyPoints: t.storyPoints,
      createdByType: actor.type,
      createdByUuid: actor.uuid,
    });
    await tasks.insertCriteria(t.uuid, t.criteria);
    await insertReferences(tx, { type: 'task', uuid: t.uuid }, t.references);
  }
  const edges = prepared.flatMap((t) => [...t.dependsOnDrafts, ...t.dependsOnTasks].map((d) => ({ taskUuid: t.uuid, dependsOnUuid: d })));
  if (edges.length) await tasks.addDependencies(edges);

  for (const t of prepared) {
    tx.record('task.created', { projectUuid: project.uuid, uuid: t.uuid }, { title: t.title });
    tx.change('task', t.uuid, project.uuid, 'created');
    if (t.description) {
      tx.text({ sourceType: 'task', sourceUuid: t.uuid, entityType: 'task', entityUuid: t.uuid, entityTitle: t.title, projectUuid: project.uuid, before: null, after: t.description });
    }
  }
  for (const p of prereqs.values()) tx.change('task', p.uuid, p.projectUuid, 'updated');
  return prepared.map((t) => t.uuid);
}
