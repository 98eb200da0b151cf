import type { RecordedActivity } from './activity-merge.js';
import { mergeActivities } from './activity-merge.js';

const P = '00000000-0000-4000-8000-000000000001';
const act = (uuid: string, target: string, action: string, value: Record<string, unknown> | null = null): RecordedActivity => ({
  uuid,
  projectUuid: P,
  targetType: 'task',
  targetUuid: target,
  action,
  value,
});

describe('mergeActivities', () => {
  it('keeps one action per target as it is', () => {
    const list = [act('a', 't1', 'assigned'), act('b', 't2', 'edited', { fields: ['title'] })];
    expect(mergeActivities(list)).toEqual(list);
  });

  it('merges several actions on one target into one row led by the first action that is not an edit', () => {
    const merged = mergeActivities([act('a', 't1', 'edited', { fields: ['title'] }), act('b', 't2', 'created'), act('c', 't1', 'status_changed', { to: 'done' })]);
    expect(merged).toEqual([
      { ...act('c', 't1', 'status_changed'), value: { to: 'done', changes: [{ action: 'edited', fields: ['title'] }, { action: 'status_changed', to: 'done' }] } },
      act('b', 't2', 'created'),
    ]);
  });

  it('keeps `edited` when every action on the target is an edit', () => {
    const [row] = mergeActivities([act('a', 't1', 'edited', { fields: ['title'] }), act('b', 't1', 'edited', { fields: ['description'] })]);
    expect(row).toMatchObject({ uuid: 'a', action: 'edited', value: { fields: ['title'], changes: [{ action: 'edited', fields: ['title'] }, { action: 'edited', fields: ['description'] }] } });
  });

  it('treats the same target in two projects (a moved idea) as two targets', () => {
    const other = { ...act('b', 't1', 'moved'), projectUuid: '00000000-0000-4000-8000-000000000002' };
    expect(mergeActivities([act('a', 't1', 'moved'), other])).toHaveLength(2);
  });
});
