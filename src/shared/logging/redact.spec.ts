import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { CENSOR, redactSecrets } from './redact.js';

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, lines: () => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('redactSecrets', () => {
  it('returns an object without secrets as it is (no copy)', () => {
    const line = { requestId: 'r1', method: 'GET', route: '/api/x', status: 200, durationMs: 1.2, nested: { a: 1 } };
    expect(redactSecrets(line)).toBe(line);
  });

  it('censors secret keys at the top level and one level down, leaving the original untouched', () => {
    const original = { password: 'hunter2', user: { email: 'a@b.c', token: 't0k' }, req: { headers: { cookie: 'svc_session=s' } }, key: 'agk_x', list: [{ password: 'in-array' }] };
    const out = redactSecrets(original);
    expect(out).toEqual({ password: CENSOR, user: { email: 'a@b.c', token: CENSOR }, req: { headers: CENSOR }, key: CENSOR, list: [{ password: 'in-array' }] });
    expect(original.password).toBe('hunter2');
    expect(original.user.token).toBe('t0k');
  });

  it('censors every listed key', () => {
    for (const k of ['password', 'key', 'token', 'authorization', 'cookie', 'headers', 'arguments', 'args']) {
      expect(redactSecrets({ [k]: 'secret', inner: { [k]: 'secret' } })).toEqual({ [k]: CENSOR, inner: { [k]: CENSOR } });
    }
  });

  it('serializes an Error holding a secret before censoring it', () => {
    const err = Object.assign(new Error('boom'), { authorization: 'Bearer agk_secret' });
    const out = redactSecrets({ err }) as { err: Record<string, unknown> };
    expect(out.err).toMatchObject({ type: 'Error', message: 'boom', authorization: CENSOR });
    expect(typeof out.err.stack).toBe('string');
  });
});

describe('createLogger', () => {
  it('writes secrets censored and keeps the request context fields', () => {
    const { stream, lines } = capture();
    const logger = createLogger('info', stream);
    logger.info({ password: 'pw-123456', body: { token: 'tok-abc', title: 'ok' } }, 'login');
    logger.info({ status: 200 }, 'request');
    const [first, second] = lines();
    expect(first).toMatchObject({ msg: 'login', password: CENSOR, body: { token: CENSOR, title: 'ok' } });
    expect(JSON.stringify(first)).not.toMatch(/pw-123456|tok-abc/);
    expect(second).toMatchObject({ msg: 'request', status: 200, level: 'info' });
  });
});
