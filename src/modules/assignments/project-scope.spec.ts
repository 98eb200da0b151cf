import { parseScopeHeaders } from './project-scope.js';

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('parseScopeHeaders (docs/tool-conventions.md §2)', () => {
  it('asks for no scope without headers or with blank ones', () => {
    expect(parseScopeHeaders({})).toEqual({ kind: 'all' });
    expect(parseScopeHeaders({ 'x-service-project-group': '', 'x-service-project': '  ' })).toEqual({ kind: 'all' });
  });

  it('lets a non-blank group header win over the project header', () => {
    expect(parseScopeHeaders({ 'x-service-project-group': ` ${A.toUpperCase()} `, 'x-service-project': B })).toEqual({ kind: 'group', groupUuid: A });
  });

  it('turns a group header that is not a uuid into a group request naming nothing', () => {
    expect(parseScopeHeaders({ 'x-service-project-group': 'not-a-uuid', 'x-service-project': B })).toEqual({ kind: 'group', groupUuid: null });
  });

  it('falls through a blank group header to the project list', () => {
    expect(parseScopeHeaders({ 'x-service-project-group': '   ', 'x-service-project': A })).toEqual({ kind: 'projects', projectUuids: [A] });
  });

  it('splits the project list on commas, trims, drops blanks, non-uuids and repeats', () => {
    const value = ` ${A} ,, junk , ${B.toUpperCase()},${A}, 123 `;
    expect(parseScopeHeaders({ 'x-service-project': value })).toEqual({ kind: 'projects', projectUuids: [A, B] });
  });

  it('keeps an all-junk list as an empty project request, never as "all"', () => {
    expect(parseScopeHeaders({ 'x-service-project': 'junk, nope' })).toEqual({ kind: 'projects', projectUuids: [] });
    // A value made only of separators is not blank: it names no project, so the scope is empty.
    expect(parseScopeHeaders({ 'x-service-project-group': '  ', 'x-service-project': ' , ' })).toEqual({ kind: 'projects', projectUuids: [] });
  });

  it('joins repeated headers', () => {
    expect(parseScopeHeaders({ 'x-service-project': [A, B] as unknown as string })).toEqual({ kind: 'projects', projectUuids: [A, B] });
  });
});
