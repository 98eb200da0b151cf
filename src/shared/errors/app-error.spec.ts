import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable } from './app-error.js';

describe('isDatabaseUnavailable', () => {
  it('recognises refused and lost connections, directly or wrapped by TypeORM', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated due to connection timeout'))).toBe(true);
  });

  it('treats the next query of a transaction whose connection failed (runner released by TypeORM) as unavailable', () => {
    // Seen when PostgreSQL stops while a multi-statement mutation is running (test/system/faults-database.test.ts).
    expect(isDatabaseUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    // The same through the transaction's entity manager (manager.query).
    expect(isDatabaseUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  it("classifies pg-pool's acquire timeout (pool exhausted) as unavailable, also when wrapped", () => {
    const err = new Error('timeout exceeded when trying to connect');
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable({ message: 'Query failed', driverError: err })).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isDatabaseUnavailable(new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505' })))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('statement timeout exceeded'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
