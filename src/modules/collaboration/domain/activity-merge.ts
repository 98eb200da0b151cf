import type { EntityType } from '../../../shared/event-bus/events.js';

/** One entry of the activity log before merging: a domain event as the log shows it (docs/domain.md §2.18). */
export interface RecordedActivity {
  uuid: string;
  projectUuid: string;
  targetType: EntityType;
  targetUuid: string;
  action: string;
  value?: Record<string, unknown> | null;
}

/**
 * One activity row per changed target and mutation (docs/domain.md §2.18): a target changed once keeps its action; a
 * target changed several times gets one row whose action is the first that is not `edited` (else `edited`) and
 * whose value lists every change in order under `changes`. Rows come in the order their targets were first touched.
 */
export function mergeActivities(list: readonly RecordedActivity[]): RecordedActivity[] {
  const byTarget = new Map<string, RecordedActivity[]>();
  for (const a of list) {
    const key = `${a.targetType}:${a.targetUuid}:${a.projectUuid}`;
    const group = byTarget.get(key);
    if (group) group.push(a);
    else byTarget.set(key, [a]);
  }
  const out: RecordedActivity[] = [];
  for (const group of byTarget.values()) {
    if (group.length === 1) {
      out.push(group[0]);
      continue;
    }
    const primary = group.find((a) => a.action !== 'edited') ?? group[0];
    out.push({
      ...primary,
      value: { ...(primary.value ?? {}), changes: group.map((a) => ({ action: a.action, ...(a.value ?? {}) })) },
    });
  }
  return out;
}
