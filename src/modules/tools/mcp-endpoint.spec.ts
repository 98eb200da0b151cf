import { LIST_PLACEHOLDER, spliceListed } from './mcp-endpoint.js';

describe('spliceListed (the prepared tool list in place of the placeholder)', () => {
  const listed = JSON.stringify([{ name: 'svc_a', inputSchema: { type: 'object' } }, { name: 'svc_b', inputSchema: { type: 'object' } }]);

  it('replaces the placeholder as the SDK serialized it, leaving the rest of the answer alone', () => {
    const answer = JSON.stringify({ result: { tools: [LIST_PLACEHOLDER], ttlMs: 0, cacheScope: 'private' }, jsonrpc: '2.0', id: 1 });
    expect(JSON.parse(spliceListed(answer, listed))).toEqual({ result: { tools: JSON.parse(listed), ttlMs: 0, cacheScope: 'private' }, jsonrpc: '2.0', id: 1 });
  });

  it('re-serializes when the placeholder is not found verbatim (an SDK that reorders or adds fields)', () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: [{ inputSchema: { type: 'object' }, name: LIST_PLACEHOLDER.name, extra: true }] } });
    expect(JSON.parse(spliceListed(answer, listed))).toEqual({ jsonrpc: '2.0', id: 2, result: { tools: JSON.parse(listed) } });
  });

  it('leaves an error answer untouched', () => {
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid cursor' } });
    expect(JSON.parse(spliceListed(answer, listed))).toEqual(JSON.parse(answer));
  });
});
