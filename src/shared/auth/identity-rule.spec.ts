import { matchesIdentity } from './identity-rule.js';

describe('identity rule', () => {
  const agent = { type: 'agent' as const, uuid: 'a1', ownerUuid: 'u1' };
  const user = { type: 'user' as const, uuid: 'u1', ownerUuid: null };

  it('matches an agent to itself and to its owner user', () => {
    expect(matchesIdentity(agent, { type: 'agent', uuid: 'a1' })).toBe(true);
    expect(matchesIdentity(agent, { type: 'user', uuid: 'u1' })).toBe(true);
    expect(matchesIdentity(agent, { type: 'agent', uuid: 'a2' })).toBe(false);
    expect(matchesIdentity(agent, { type: 'user', uuid: 'u2' })).toBe(false);
  });

  it('matches a user to itself and to agents it owns', () => {
    expect(matchesIdentity(user, { type: 'user', uuid: 'u1' })).toBe(true);
    expect(matchesIdentity(user, { type: 'agent', uuid: 'a1' }, new Set(['a1']))).toBe(true);
    expect(matchesIdentity(user, { type: 'agent', uuid: 'a1' })).toBe(false);
    expect(matchesIdentity(user, { type: null, uuid: null })).toBe(false);
  });
});
