import { deriveAll, derivedStatus, type IdeaStatusFacts } from './derived-status.js';

const base: Omit<IdeaStatusFacts, 'uuid' | 'parentUuid'> = {
  isContainer: false,
  status: 'elaborated',
  elaborationStatus: 'resolved',
  hasPendingRound: false,
  hasPendingProposal: false,
  latestApproved: null,
};
const facts = (uuid: string, parentUuid: string | null, over: Partial<IdeaStatusFacts> = {}): IdeaStatusFacts => ({ ...base, uuid, parentUuid, ...over });

describe('derivedStatus (docs/domain.md §4.2, one case per row)', () => {
  describe('theme with at least one child', () => {
    const theme = { ...base, isContainer: true, status: 'open' as const, elaborationStatus: null };
    it('all children done -> done', () => expect(derivedStatus(theme, ['done', 'done'])).toBe('done'));
    it('all children todo -> todo', () => expect(derivedStatus({ ...theme, status: 'elaborated' }, ['todo', 'todo'])).toBe('todo'));
    it('mixed children -> in_progress', () => {
      expect(derivedStatus(theme, ['todo', 'done'])).toBe('in_progress');
      expect(derivedStatus(theme, ['human_conduct_required'])).toBe('in_progress');
      expect(derivedStatus(theme, ['in_progress', 'in_progress'])).toBe('in_progress');
    });
    it('a theme without children falls through to its own state', () => {
      expect(derivedStatus(theme, [])).toBe('todo');
      expect(derivedStatus({ ...theme, status: 'elaborating', elaborationStatus: 'pending_answers' })).toBe('human_conduct_required');
    });
    it('children never count for a non-theme', () => expect(derivedStatus({ ...base, status: 'open', elaborationStatus: null }, ['done'])).toBe('todo'));
  });

  it('open -> todo', () => expect(derivedStatus({ ...base, status: 'open', elaborationStatus: null })).toBe('todo'));

  it('elaborating with pending_answers -> human_conduct_required', () =>
    expect(derivedStatus({ ...base, status: 'elaborating', elaborationStatus: 'pending_answers' })).toBe('human_conduct_required'));

  it('elaborating otherwise -> in_progress', () => {
    expect(derivedStatus({ ...base, status: 'elaborating', elaborationStatus: null })).toBe('in_progress');
    expect(derivedStatus({ ...base, status: 'elaborating', elaborationStatus: 'validating' })).toBe('in_progress');
  });

  it('elaborated with a round still pending_answers -> human_conduct_required', () =>
    expect(derivedStatus({ ...base, hasPendingRound: true, latestApproved: { total: 1, toVerify: 0, finished: 1 } })).toBe('human_conduct_required'));

  it('elaborated with a pending proposal -> human_conduct_required', () =>
    expect(derivedStatus({ ...base, hasPendingProposal: true, latestApproved: { total: 2, toVerify: 0, finished: 2 } })).toBe('human_conduct_required'));

  it('elaborated whose latest approved proposal has a task in to_verify -> human_conduct_required', () =>
    expect(derivedStatus({ ...base, latestApproved: { total: 3, toVerify: 1, finished: 2 } })).toBe('human_conduct_required'));

  it('elaborated whose latest approved proposal has tasks all done or closed -> done', () =>
    expect(derivedStatus({ ...base, latestApproved: { total: 3, toVerify: 0, finished: 3 } })).toBe('done'));

  describe('elaborated, anything else -> in_progress', () => {
    it('no approved proposal yet', () => expect(derivedStatus(base)).toBe('in_progress'));
    it('approved proposal without tasks', () => expect(derivedStatus({ ...base, latestApproved: { total: 0, toVerify: 0, finished: 0 } })).toBe('in_progress'));
    it('work under way', () => expect(derivedStatus({ ...base, latestApproved: { total: 3, toVerify: 0, finished: 1 } })).toBe('in_progress'));
  });
});

describe('deriveAll', () => {
  it('derives nested themes bottom-up', () => {
    const result = deriveAll([
      facts('root', null, { isContainer: true }),
      facts('sub', 'root', { isContainer: true }),
      facts('a', 'sub', { latestApproved: { total: 1, toVerify: 0, finished: 1 } }),
      facts('b', 'sub', { latestApproved: { total: 2, toVerify: 0, finished: 2 } }),
      facts('c', 'root', { status: 'open', elaborationStatus: null }),
    ]);
    expect(result.get('a')).toBe('done');
    expect(result.get('sub')).toBe('done');
    expect(result.get('c')).toBe('todo');
    expect(result.get('root')).toBe('in_progress');
  });

  it('ignores children outside the given facts and survives a cycle', () => {
    const result = deriveAll([
      facts('x', 'y', { isContainer: true, status: 'open', elaborationStatus: null }),
      facts('y', 'x', { isContainer: true, status: 'open', elaborationStatus: null }),
      facts('lonely', 'missing', { status: 'open', elaborationStatus: null }),
    ]);
    expect(result.get('lonely')).toBe('todo');
    expect(result.get('x')).toBeDefined();
    expect(result.get('y')).toBeDefined();
  });
});
