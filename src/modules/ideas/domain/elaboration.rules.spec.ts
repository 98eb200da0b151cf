import { checkAnswers, skipReason, validateRound, type QuestionInput } from './elaboration.rules.js';

const q = (id: string, over: Partial<QuestionInput> = {}): QuestionInput => ({
  id,
  text: ` Why ${id}? `,
  category: 'functional',
  options: [
    { id: 'a', label: ' A ' },
    { id: 'b', label: 'B', description: 'bee' },
  ],
  ...over,
});

describe('validateRound', () => {
  it('normalises a valid round: trimmed text and labels, description null, required default true', () => {
    expect(validateRound('standard', [q('q1'), q('q2', { required: false })])).toEqual({
      depth: 'standard',
      questions: [
        { questionId: 'q1', text: 'Why q1?', category: 'functional', options: [{ id: 'a', label: 'A', description: null }, { id: 'b', label: 'B', description: 'bee' }], required: true },
        expect.objectContaining({ questionId: 'q2', required: false }),
      ],
    });
  });

  it('lists every argument problem with its path', () => {
    try {
      validateRound('deep', [q('', { category: 'x', options: [{ id: 'a', label: '' }] })]);
      throw new Error('expected a refusal');
    } catch (err) {
      const e = err as { code: string; message: string; extra: { details: Array<{ field: string }> } };
      expect(e.code).toBe('VALIDATION_ERROR');
      expect(e.message).toBe('Invalid arguments');
      expect(e.extra.details.map((d) => d.field)).toEqual(['depth', 'questions.0.id', 'questions.0.category', 'questions.0.options', 'questions.0.options.0.label']);
    }
  });

  it.each([
    ['no questions', []],
    ['16 questions', Array.from({ length: 16 }, (_, i) => q(`q${i}`))],
    ['one option', [q('q', { options: [{ id: 'a', label: 'A' }] })]],
    ['six options', [q('q', { options: Array.from({ length: 6 }, (_, i) => ({ id: `o${i}`, label: 'L' })) })]],
  ])('refuses %s', (_name, questions) => {
    expect(() => validateRound('minimal', questions)).toThrow('Invalid arguments');
  });

  it('refuses duplicate question and option ids by name', () => {
    expect(() => validateRound('minimal', [q('x'), q('x')])).toThrow('Duplicate question id x');
    expect(() => validateRound('minimal', [q('y', { options: [{ id: 'o', label: 'A' }, { id: 'o', label: 'B' }] })])).toThrow('Duplicate option id o in question y');
  });
});

describe('checkAnswers', () => {
  const questions = [
    { questionId: 'q1', options: [{ id: 'a', label: 'A' }] },
    { questionId: 'q2', options: [{ id: 'b', label: 'B' }] },
  ];

  it('accepts an option, a custom text, or both; trims the text', () => {
    const out = checkAnswers(questions, [
      { questionId: 'q1', selectedOptionId: 'a', customText: null },
      { questionId: 'q2', selectedOptionId: null, customText: '  mine  ' },
    ]);
    expect(out.map((a) => [a.question.questionId, a.selectedOptionId, a.customText])).toEqual([
      ['q1', 'a', null],
      ['q2', null, 'mine'],
    ]);
  });

  it('refuses with the exact messages of docs/tool-conventions.md', () => {
    expect(() => checkAnswers(questions, [{ questionId: 'zz', selectedOptionId: 'a' }])).toThrow('Unknown question zz');
    expect(() => checkAnswers(questions, [{ questionId: 'q1', selectedOptionId: 'b' }])).toThrow('Unknown option b for question q1');
    expect(() => checkAnswers(questions, [{ questionId: 'q1', selectedOptionId: null, customText: '  ' }])).toThrow('Question q1 needs an option or a non-empty customText');
    expect(() => checkAnswers(questions, [{ questionId: 'q1', selectedOptionId: 'a' }, { questionId: 'q1', selectedOptionId: 'a' }])).toThrow('Duplicate answer for question q1');
    expect(() => checkAnswers(questions, [])).toThrow('Invalid arguments');
  });
});

describe('skipReason', () => {
  it('trims and bounds the reason to 1-2000 characters', () => {
    expect(skipReason('  ok  ')).toBe('ok');
    expect(() => skipReason('   ')).toThrow('Invalid arguments');
    expect(() => skipReason('x'.repeat(2001))).toThrow('Invalid arguments');
    expect(skipReason('x'.repeat(2000))).toHaveLength(2000);
  });
});
