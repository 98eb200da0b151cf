import { LIST_PLACEHOLDER, spliceListed } from './mcp-endpoint.js';

describe('spliceListed (the prepared tool list in place of the placeholder)', () => {
  const list = [{ name: 'svc_a', inputSchema: { type: 'object' } }, { name: 'svc_b', title: 'Bé', inputSchema: { type: 'object' } }];
  const listed = Buffer.from(JSON.stringify(list));
  const splice = (answer: unknown): unknown => JSON.parse(Buffer.concat(spliceListed(Buffer.from(JSON.stringify(answer)), listed)).toString('utf8'));

  it('replaces the placeholder as the SDK serialized it, leaving the rest of the answer alone', () => {
    const answer = { result: { tools: [LIST_PLACEHOLDER], ttlMs: 0, cacheScope: 'private' }, jsonrpc: '2.0', id: 1 };
    expect(splice(answer)).toEqual({ result: { tools: list, ttlMs: 0, cacheScope: 'private' }, jsonrpc: '2.0', id: 1 });
  });

  it('re-serializes when the placeholder is not found verbatim (an SDK that reorders or adds fields)', () => {
    const answer = { jsonrpc: '2.0', id: 2, result: { tools: [{ inputSchema: { type: 'object' }, name: LIST_PLACEHOLDER.name, extra: true }] } };
    expect(splice(answer)).toEqual({ jsonrpc: '2.0', id: 2, result: { tools: list } });
  });

  it('leaves an error answer untouched', () => {
    const answer = { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid cursor' } };
    expect(splice(answer)).toEqual(answer);
  });
});
