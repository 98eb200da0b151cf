import { restFields, toolPaths } from '../../../../test/utils/dto-check.js';
import { AnswerElaborationArgsDto, AnswerElaborationDto, StartElaborationArgsDto, StartElaborationDto } from './elaboration.dto.js';
import { CreateIdeaArgsDto, CreateIdeaDto, EditIdeaArgsDto, EditIdeaDto, ListIdeasArgsDto } from './idea.dto.js';

const UUID = '0190c3b5-7d2e-7a1b-9c3d-4e5f6a7b8c9d';
const ref = { type: 'docs', url: 'https://x.test', title: 'r' };
const question = { id: 'q1', text: 'Why?', category: 'scope', options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }] };

describe('idea DTOs: the tool arguments and the REST bodies they derive from', () => {
  it('create: at most 10 references, each checked; a theme flag is a boolean', async () => {
    for (const [extra, field] of [[{ references: Array(11).fill(ref) }, 'references'], [{ references: [{ ...ref, notes: null }] }, 'references.0.notes'], [{ isContainer: null }, 'isContainer']] as const) {
      expect(toolPaths(CreateIdeaArgsDto, { projectUuid: UUID, title: 'x', ...extra })).toEqual([field]);
      expect(await restFields(CreateIdeaDto, { title: 'x', ...extra })).toEqual([field]);
    }
  });

  it('edit: null detaches from the parent only', async () => {
    expect(toolPaths(EditIdeaArgsDto, { ideaUuid: UUID, parentUuid: null })).toEqual([]);
    expect(await restFields(EditIdeaDto, { parentUuid: null, title: null })).toEqual(['title']);
  });

  it('list: a known status filter', () => {
    expect(toolPaths(ListIdeasArgsDto, { projectUuid: UUID, status: 'bogus' })).toEqual(['status']);
  });

  it('elaboration: the tools check counts and lengths here; REST leaves them to the round rules and their messages', async () => {
    const long = { depth: 'standard', questions: [{ ...question, options: [{ id: 'a', label: 'A' }] }] };
    expect(toolPaths(StartElaborationArgsDto, { ideaUuid: UUID, ...long })).toEqual(['questions.0.options']);
    expect(await restFields(StartElaborationDto, long)).toEqual([]);
    const answers = { answers: [{ questionId: 'q'.repeat(51), selectedOptionId: null, customText: 'x'.repeat(5001) }] };
    expect(toolPaths(AnswerElaborationArgsDto, { ideaUuid: UUID, ...answers })).toEqual(['answers.0.questionId', 'answers.0.customText']);
    expect(await restFields(AnswerElaborationDto, answers)).toEqual([]);
  });
});
