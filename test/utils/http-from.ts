import http from 'node:http';

export interface FromResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/**
 * One HTTP request sent from a chosen local address (any 127.0.0.0/8 address on Linux): a client that is not the
 * trusted proxy of TRUST_PROXY=127.0.0.1, with whatever X-Forwarded-For it likes to claim.
 */
export function requestFrom(localAddress: string, url: string, opts: { method?: string; headers?: Record<string, string>; json?: unknown } = {}): Promise<FromResult> {
  const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
  const headers = { ...(opts.headers ?? {}), ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers, localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => {
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}
