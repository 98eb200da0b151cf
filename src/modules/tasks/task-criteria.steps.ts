import type { Tx } from '../../shared/database/transaction-runner.js';
import { ValidationError } from '../../shared/errors/app-error.js';
import type { MarkInput } from './domain/task-fields.js';
import type { TaskEntity } from './task.entity.js';
import { TaskRepository, type CriterionMarks } from './task.repository.js';

/**
 * Self-check (`dev`) or verification (`verify`) marks. Every named criterion must belong to the task, checked
 * for all before any write; marks identical to the stored ones change nothing.
 */
export async function applyMarks(tx: Tx, task: TaskEntity, marks: MarkInput[], kind: 'dev' | 'verify'): Promise<void> {
  const tasks = new TaskRepository(tx.manager);
  const rows = new Map((await tasks.criteria(task.uuid)).map((c) => [c.uuid, c]));
  for (const m of marks) {
    if (!rows.has(m.uuid.toLowerCase())) throw new ValidationError(`Criterion ${m.uuid} does not belong to this task`);
  }
  const now = new Date();
  const changed: Array<{ uuid: string; status: string }> = [];
  for (const m of marks) {
    const row = rows.get(m.uuid.toLowerCase())!;
    let patch: CriterionMarks;
    if (kind === 'dev') {
      if (row.devStatus === m.status && row.devEvidence === m.evidence) continue;
      patch = { devStatus: m.status, devEvidence: m.evidence, devMarkedByType: tx.actor.type, devMarkedByUuid: tx.actor.uuid, devMarkedAt: now };
    } else {
      if (row.status === m.status && row.evidence === m.evidence) continue;
      // Back to pending is "not marked": the marker goes with it.
      const marker = m.status === 'pending' ? { markedByType: null, markedByUuid: null, markedAt: null } : { markedByType: tx.actor.type, markedByUuid: tx.actor.uuid, markedAt: now };
      patch = { status: m.status, evidence: m.evidence, ...marker };
    }
    await tasks.markCriterion(row.uuid, patch);
    Object.assign(row, patch);
    changed.push({ uuid: row.uuid, status: m.status });
  }
  if (!changed.length) return;
  tx.record(kind === 'dev' ? 'task.criteria_self_checked' : 'task.criteria_marked', { projectUuid: task.projectUuid, uuid: task.uuid }, { criteria: changed });
  tx.change('task', task.uuid, task.projectUuid, 'updated');
}
