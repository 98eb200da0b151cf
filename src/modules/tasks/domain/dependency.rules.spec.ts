import { AppError } from '../../../shared/errors/app-error.js';
import { addDependency, CYCLE_MESSAGE, DependencyGraph, isResolved, SAME_PROJECT_MESSAGE, SELF_DEPENDENCY_MESSAGE } from './dependency.rules.js';

const sameProject = (): string => 'p1';

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('dependency rules (docs/domain.md §6.4)', () => {
  it('a task cannot depend on itself', () => {
    expect(refusal(() => addDependency(new DependencyGraph(), { taskUuid: 'a', dependsOnUuid: 'a' }, sameProject))).toEqual({
      code: 'VALIDATION_ERROR',
      message: SELF_DEPENDENCY_MESSAGE,
    });
  });

  it('both tasks must belong to the same project', () => {
    const projectOf = (u: string): string => (u === 'a' ? 'p1' : 'p2');
    expect(refusal(() => addDependency(new DependencyGraph(), { taskUuid: 'a', dependsOnUuid: 'b' }, projectOf))).toEqual({
      code: 'VALIDATION_ERROR',
      message: SAME_PROJECT_MESSAGE,
    });
  });

  it('refuses a direct cycle', () => {
    const g = new DependencyGraph([{ taskUuid: 'b', dependsOnUuid: 'a' }]);
    expect(refusal(() => addDependency(g, { taskUuid: 'a', dependsOnUuid: 'b' }, sameProject)).message).toBe(CYCLE_MESSAGE);
    expect(g.has({ taskUuid: 'a', dependsOnUuid: 'b' })).toBe(false);
  });

  it('refuses a transitive cycle', () => {
    // c -> b -> a; adding a -> c closes the loop.
    const g = new DependencyGraph([
      { taskUuid: 'c', dependsOnUuid: 'b' },
      { taskUuid: 'b', dependsOnUuid: 'a' },
    ]);
    expect(refusal(() => addDependency(g, { taskUuid: 'a', dependsOnUuid: 'c' }, sameProject)).message).toBe(CYCLE_MESSAGE);
  });

  it('accepts a diamond (shared prerequisite is not a cycle)', () => {
    const g = new DependencyGraph([
      { taskUuid: 'b', dependsOnUuid: 'a' },
      { taskUuid: 'c', dependsOnUuid: 'a' },
      { taskUuid: 'd', dependsOnUuid: 'b' },
    ]);
    expect(addDependency(g, { taskUuid: 'd', dependsOnUuid: 'c' }, sameProject)).toBe(true);
    expect(g.dependsOn('d', 'a')).toBe(true);
  });

  it('an existing edge is a no-op', () => {
    const g = new DependencyGraph([{ taskUuid: 'b', dependsOnUuid: 'a' }]);
    expect(addDependency(g, { taskUuid: 'b', dependsOnUuid: 'a' }, sameProject)).toBe(false);
  });

  it('checks each edit against the graph after the earlier edits of the same batch', () => {
    const g = new DependencyGraph();
    expect(addDependency(g, { taskUuid: 'b', dependsOnUuid: 'a' }, sameProject)).toBe(true);
    expect(refusal(() => addDependency(g, { taskUuid: 'a', dependsOnUuid: 'b' }, sameProject)).message).toBe(CYCLE_MESSAGE);
    g.remove({ taskUuid: 'b', dependsOnUuid: 'a' });
    expect(addDependency(g, { taskUuid: 'a', dependsOnUuid: 'b' }, sameProject)).toBe(true);
  });

  it('only done and closed resolve a prerequisite', () => {
    expect(isResolved('done')).toBe(true);
    expect(isResolved('closed')).toBe(true);
    for (const s of ['open', 'assigned', 'in_progress', 'to_verify'] as const) expect(isResolved(s)).toBe(false);
  });
});
