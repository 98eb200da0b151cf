import { findSecrets, linesWithSecrets } from './secret-scan.js';

const KEY = 'agk_' + 'Zx9_Qm-3'.repeat(5) + 'abc'; // 47 characters, like a real key
const TOKEN = 'q'.repeat(10) + 'W7-_kLp0'.repeat(4) + 'r';
const PASSWORD = 'pa"ss\\word 1';

describe('findSecrets', () => {
  it('finds nothing in a clean log', () => {
    const log = '{"level":"info","msg":"request","route":"/api/mcp","status":200}\n{"msg":"key agk_Zx9_Qm-3Zx created"}\n';
    expect(findSecrets(log, [KEY, TOKEN, PASSWORD])).toEqual([]);
  });

  it('finds a secret as is, and reports each one once in the given order', () => {
    expect(findSecrets(`a ${TOKEN} b ${KEY} ${KEY}`, [KEY, TOKEN, KEY])).toEqual([KEY, TOKEN]);
  });

  it('finds the JSON-escaped, URL-encoded and base64 forms', () => {
    expect(findSecrets(JSON.stringify({ body: { password: PASSWORD } }), [PASSWORD])).toEqual([PASSWORD]);
    expect(findSecrets(`GET /x?p=${encodeURIComponent(PASSWORD)}`, [PASSWORD])).toEqual([PASSWORD]);
    expect(findSecrets(`authorization: Basic ${Buffer.from(KEY).toString('base64')}`, [KEY])).toEqual([KEY]);
  });

  it('finds a truncated or partial copy of a long secret, but not its 12-character display prefix', () => {
    expect(findSecrets(`"key":"${KEY.slice(0, 20)}…"`, [KEY])).toEqual([KEY]);
    expect(findSecrets(`tail ${TOKEN.slice(-17)}`, [TOKEN])).toEqual([TOKEN]);
    expect(findSecrets(`"keyPrefix":"${KEY.slice(0, 12)}"`, [KEY])).toEqual([]);
    expect(findSecrets(`"key":"${KEY.slice(0, 20)}…"`, [KEY], { fragment: 0 })).toEqual([]);
  });

  it('ignores empty secrets', () => {
    expect(findSecrets('anything', ['', KEY])).toEqual([]);
  });
});

describe('linesWithSecrets', () => {
  it('returns the offending lines with the secret masked', () => {
    const log = `{"msg":"ok"}\n{"msg":"login","password":${JSON.stringify(PASSWORD)}}\n{"key":"${KEY}"}\n`;
    const lines = linesWithSecrets(log, [KEY, PASSWORD]);
    expect(lines).toEqual(['{"msg":"login","password":"[SECRET]"}', '{"key":"[SECRET]"}']);
  });
});
