import { restFields, toolPaths } from '../../../../test/utils/dto-check.js';
import { MarkCriteriaArgsDto, MarkCriteriaDto, SelfCheckArgsDto, SelfCheckDto, SubmitTaskArgsDto, SubmitTaskDto } from './task-action.dto.js';

const UUID = '0190c3b5-7d2e-7a1b-9c3d-4e5f6a7b8c9d';

describe('task workflow DTOs: the tool arguments and the REST bodies they derive from', () => {
  it('marks: 1-50 criteria, a known status, evidence up to 2000 characters', async () => {
    const cases: Array<[unknown[], string]> = [
      [[], 'criteria'],
      [[{ uuid: UUID, status: 'ok' }], 'criteria.0.status'],
      [[{ uuid: UUID, status: 'passed', evidence: 'x'.repeat(2001) }], 'criteria.0.evidence'],
      [[{ uuid: UUID, status: 'passed', evidence: null }], 'criteria.0.evidence'],
    ];
    for (const [criteria, field] of cases) {
      expect(toolPaths(MarkCriteriaArgsDto, { taskUuid: UUID, criteria })).toEqual([field]);
      expect(await restFields(MarkCriteriaDto, { criteria })).toEqual([field]);
    }
    expect(toolPaths(MarkCriteriaArgsDto, { taskUuid: UUID, criteria: [{ uuid: UUID, status: 'pending' }] })).toEqual([]);
  });

  it('self-check: pending is not a self-check status', async () => {
    expect(toolPaths(SelfCheckArgsDto, { taskUuid: UUID, criteria: [{ uuid: UUID, devStatus: 'pending' }] })).toEqual(['criteria.0.devStatus']);
    expect(await restFields(SelfCheckDto, { criteria: [{ uuid: UUID, devStatus: 'pending' }] })).toEqual(['criteria.0.devStatus']);
  });

  it('submit: a summary of at most 10000 characters', async () => {
    expect(toolPaths(SubmitTaskArgsDto, { taskUuid: UUID, summary: 'x'.repeat(10_001) })).toEqual(['summary']);
    expect(await restFields(SubmitTaskDto, { summary: 'x'.repeat(10_001) })).toEqual(['summary']);
    expect(await restFields(SubmitTaskDto, {})).toEqual([]);
  });
});
