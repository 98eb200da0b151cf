import { restFields, toolPaths } from '../../../../test/utils/dto-check.js';
import { CreateDocumentArgsDto, CreateDocumentDto, ListDocumentsArgsDto } from './document.dto.js';

const UUID = '0190c3b5-7d2e-7a1b-9c3d-4e5f6a7b8c9d';

describe('document DTOs: the tool arguments and the REST bodies they derive from', () => {
  it('create: an authored type (reports have their own route), content up to 100000 characters, no null proposal', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'report', title: 'R' }, 'type'],
      [{ type: 'prd', title: 'Big', content: 'x'.repeat(100_001) }, 'content'],
      [{ type: 'prd', title: 'P', proposalUuid: null }, 'proposalUuid'],
    ];
    for (const [body, field] of cases) {
      expect(toolPaths(CreateDocumentArgsDto, { projectUuid: UUID, ...body })).toEqual([field]);
      expect(await restFields(CreateDocumentDto, body)).toEqual([field]);
    }
  });

  it('list: a known type filter', () => {
    expect(toolPaths(ListDocumentsArgsDto, { projectUuid: UUID, type: 'memo' })).toEqual(['type']);
    expect(toolPaths(ListDocumentsArgsDto, { projectUuid: UUID, type: 'report' })).toEqual([]);
  });
});
