import type { TaskDraft } from '../proposal.entity.js';
import { addTaskDraft, findDraftCycle, parseTaskDraft, parseTaskDraftPatch, removeTaskDraft, updateTaskDraft } from './proposal-drafts.js';

const draft = (uuid: string, deps: string[] = []): TaskDraft => ({
  uuid,
  title: uuid,
  description: '',
  priority: null,
  storyPoints: null,
  acceptanceCriteriaItems: [{ description: 'c', required: true }],
  dependsOnDraftUuids: deps,
});

describe('task drafts (pure)', () => {
  it('finds cycles, including long ones, and ignores unknown entries', () => {
    expect(findDraftCycle([draft('a'), draft('b', ['a']), draft('c', ['a', 'b'])])).toBeNull();
    expect(findDraftCycle([draft('a', ['c']), draft('b', ['a']), draft('c', ['b'])])).toEqual(['a', 'c', 'b']);
    expect(findDraftCycle([draft('a', ['a'])])).toEqual(['a']);
    expect(findDraftCycle([draft('a', ['ghost'])])).toBeNull();
  });

  it('parses a draft: trims, drops blank criteria, de-duplicates dependencies', () => {
    expect(parseTaskDraft({ title: ' T ', acceptanceCriteriaItems: [{ description: ' x ' }, { description: '' }], dependsOnDraftUuids: ['a', 'a'] })).toEqual({
      title: 'T',
      description: '',
      priority: null,
      storyPoints: null,
      acceptanceCriteriaItems: [{ description: 'x', required: true }],
      dependsOnDraftUuids: ['a'],
    });
    expect(() => parseTaskDraftPatch({})).toThrow('Nothing to update');
  });

  it('adds only with known sibling dependencies; update refuses self and cycles', () => {
    const list = [draft('a'), draft('b', ['a'])];
    expect(() => addTaskDraft(list, parseTaskDraft({ title: 't', acceptanceCriteriaItems: [{ description: 'x' }], dependsOnDraftUuids: ['zz'] }))).toThrow('Unknown task draft zz');
    expect(() => updateTaskDraft(list, 'a', { dependsOnDraftUuids: ['a'] })).toThrow('A task draft cannot depend on itself');
    expect(() => updateTaskDraft(list, 'a', { dependsOnDraftUuids: ['b'] })).toThrow('Draft dependencies would create a cycle');
    expect(() => updateTaskDraft(list, 'x', { title: 'y' })).toThrow('Task draft not found');
  });

  it('removal strips the draft from its siblings', () => {
    expect(removeTaskDraft([draft('a'), draft('b', ['a']), draft('c', ['b', 'a'])], 'a').map((d) => [d.uuid, d.dependsOnDraftUuids])).toEqual([
      ['b', []],
      ['c', ['b']],
    ]);
  });
});
