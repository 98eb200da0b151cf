import { taskFilterSql } from './task-read.repository.js';

const C = '11111111-1111-4111-8111-111111111111';
const P = '22222222-2222-4222-8222-222222222222';
const Q = '33333333-3333-4333-8333-333333333333';

describe('taskFilterSql (the WHERE clause of a task list)', () => {
  it('scopes by company and project, in $1 and $2', () => {
    expect(taskFilterSql({ companyUuid: C, projectUuid: P })).toEqual({ where: 't.company_uuid = $1 AND t.project_uuid = $2', params: [C, P] });
  });

  it('numbers each optional parameter after the ones before it', () => {
    expect(taskFilterSql({ companyUuid: C, projectUuid: P, status: 'open', priority: 'high', proposalUuids: [Q] })).toEqual({
      where: 't.company_uuid = $1 AND t.project_uuid = $2 AND t.status = $3 AND t.priority = $4 AND t.proposal_uuid = ANY($5::uuid[])',
      params: [C, P, 'open', 'high', [Q]],
    });
    expect(taskFilterSql({ companyUuid: C, projectUuid: P, priority: 'low', proposalUuids: [] })).toEqual({
      where: 't.company_uuid = $1 AND t.project_uuid = $2 AND t.priority = $3 AND t.proposal_uuid = ANY($4::uuid[])',
      params: [C, P, 'low', []],
    });
  });

  it('leaves out null filters', () => {
    expect(taskFilterSql({ companyUuid: C, projectUuid: P, status: null, priority: null, proposalUuids: null, readiness: null }).params).toEqual([C, P]);
  });

  it('adds readiness as SQL without parameters', () => {
    const available = taskFilterSql({ companyUuid: C, projectUuid: P, readiness: 'available', proposalUuids: [Q] });
    expect(available.where).toMatch(/^t\.company_uuid = \$1 AND t\.project_uuid = \$2 AND t\.status = 'open' AND t\.assignee_uuid IS NULL AND NOT EXISTS \(/);
    expect(available.where).toMatch(/AND t\.proposal_uuid = ANY\(\$3::uuid\[\]\)$/);
    expect(available.params).toEqual([C, P, [Q]]);
    expect(taskFilterSql({ companyUuid: C, projectUuid: P, readiness: 'unblocked' }).where).toContain(`t.status IN ('open', 'assigned') AND NOT EXISTS (`);
  });
});
