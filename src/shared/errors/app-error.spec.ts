import { isDatabaseUnavailable } from './app-error.js';

describe('isDatabaseUnavailable', () => {
  it("classifies pg-pool's acquire timeout as unavailable, also when wrapped", () => {
    const err = new Error('timeout exceeded when trying to connect');
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable({ message: 'Query failed', driverError: err })).toBe(true);
  });

  it('keeps the existing signals and rejects ordinary errors', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new Error('statement timeout exceeded'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
