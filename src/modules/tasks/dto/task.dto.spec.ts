import { restFields, toolPaths } from '../../../../test/utils/dto-check.js';
import { ListTasksArgsDto } from './task-query.dto.js';
import { CreateTasksArgsDto, CreateTasksDto, UpdateTaskArgsDto, UpdateTaskDto } from './task.dto.js';

const UUID = '0190c3b5-7d2e-7a1b-9c3d-4e5f6a7b8c9d';
const task = { title: 'T', acceptanceCriteriaItems: [{ description: 'done' }] };
const ref = { type: 'docs', url: 'https://x.test', title: 'r' };

describe('task DTOs: the tool arguments and the REST bodies they derive from', () => {
  it('svc_create_tasks / POST …/tasks: 1-50 tasks, story points 0-1000, at most 10 references, no nulls', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tasks: [] }, 'tasks'],
      [{ tasks: [{ ...task, storyPoints: 1001 }] }, 'tasks.0.storyPoints'],
      [{ tasks: [{ ...task, references: Array(11).fill(ref) }] }, 'tasks.0.references'],
      [{ tasks: [{ ...task, priority: 'urgent' }] }, 'tasks.0.priority'],
      [{ tasks: [{ ...task, description: null }] }, 'tasks.0.description'],
      [{ tasks: [task], proposalUuid: null }, 'proposalUuid'],
      [{ tasks: [{ ...task, draftUuid: '' }] }, 'tasks.0.draftUuid'],
    ];
    for (const [body, field] of cases) {
      expect(toolPaths(CreateTasksArgsDto, { projectUuid: UUID, ...body })).toEqual([field]);
      expect(await restFields(CreateTasksDto, body)).toEqual([field]);
    }
    expect(toolPaths(CreateTasksArgsDto, { projectUuid: UUID, tasks: [{ ...task, dependsOnDraftUuids: ['a', ''] }] })).toEqual(['tasks.0.dependsOnDraftUuids.1']);
    // The service names an empty or unknown draft id on REST.
    expect(await restFields(CreateTasksDto, { tasks: [{ ...task, dependsOnDraftUuids: [''] }] })).toEqual([]);
    expect(toolPaths(CreateTasksArgsDto, { projectUuid: UUID, tasks: [task] })).toEqual([]);
  });

  it('svc_update_task / PATCH /tasks/:uuid: field limits and values; null only clears the story points', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'x'.repeat(201) }, 'title'],
      [{ description: 'x'.repeat(100_001) }, 'description'],
      [{ priority: 'urgent' }, 'priority'],
      [{ storyPoints: -1 }, 'storyPoints'],
      [{ status: 'done' }, 'status'],
      [{ status: null }, 'status'],
      [{ addDependsOn: ['x'] }, 'addDependsOn'],
    ];
    for (const [body, field] of cases) {
      expect(toolPaths(UpdateTaskArgsDto, { taskUuid: UUID, ...body })).toEqual([field === 'addDependsOn' ? 'addDependsOn.0' : field]);
      expect(await restFields(UpdateTaskDto, body)).toEqual([field]);
    }
    expect(toolPaths(UpdateTaskArgsDto, { taskUuid: UUID, storyPoints: null })).toEqual([]);
    expect(await restFields(UpdateTaskDto, { storyPoints: null })).toEqual([]);
    // A blank title is the service's rule on REST (after trimming); the tool refuses an empty one here.
    expect(toolPaths(UpdateTaskArgsDto, { taskUuid: UUID, title: '' })).toEqual(['title']);
    expect(await restFields(UpdateTaskDto, { title: '' })).toEqual([]);
  });

  it('svc_list_tasks: known statuses and priorities, at most 20 proposal filters', () => {
    const many = Array.from({ length: 21 }, () => UUID);
    expect(toolPaths(ListTasksArgsDto, { projectUuid: UUID, status: 'nope' })).toEqual(['status']);
    expect(toolPaths(ListTasksArgsDto, { projectUuid: UUID, proposalUuids: many })).toEqual(['proposalUuids']);
    expect(toolPaths(ListTasksArgsDto, { projectUuid: UUID, pageSize: 101, page: 0 })).toEqual(['page', 'pageSize']);
    expect(toolPaths(ListTasksArgsDto, { projectUuid: UUID, status: 'open', priority: 'high', proposalUuids: [UUID] })).toEqual([]);
  });
});
