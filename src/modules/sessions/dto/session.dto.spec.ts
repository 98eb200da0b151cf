import { toolPaths } from '../../../../test/utils/dto-check.js';
import { CreateSessionDto, ListSessionsArgsDto } from './session.dto.js';

describe('session DTOs (tool arguments)', () => {
  it('a known status filter; a name of 1-200 and a description of at most 100000 characters', () => {
    expect(toolPaths(ListSessionsArgsDto, { status: 'zombie' })).toEqual(['status']);
    expect(toolPaths(ListSessionsArgsDto, { status: 'closed', page: 1 })).toEqual([]);
    expect(toolPaths(CreateSessionDto, { name: '', description: 'x'.repeat(100_001) })).toEqual(['name', 'description']);
    expect(toolPaths(CreateSessionDto, { name: 'Builder' })).toEqual([]);
  });
});
