import http from 'node:http';
import { REQUEST_TIMEOUT_MS } from './config.js';

/**
 * Raw HTTP with node:http rather than fetch: paths are sent as written (no `..` normalisation, no re-encoding),
 * any method and header can be sent, and an SSE answer is recognised by its headers and dropped.
 */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: unknown;
  /** The answer was an event stream (closed by us after its headers). */
  stream: boolean;
}

/** node:http itself refused to send the request (e.g. a header character it never puts on the wire). */
export class NotSendable extends Error {}

export function send(baseUrl: string, req: RawRequest, timeoutMs = REQUEST_TIMEOUT_MS): Promise<RawResponse> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let r: http.ClientRequest;
    try {
      // A body always goes with its Content-Length (node:http would send a GET/DELETE body unframed).
      const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
      r = http.request({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers, agent: false });
    } catch (err) {
      reject(new NotSendable(String(err)));
      return;
    }
    const timer = setTimeout(() => r.destroy(new Error(`no complete answer within ${timeoutMs} ms (hang)`)), timeoutMs);
    r.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    r.on('response', (res) => {
      const base = { status: res.statusCode ?? 0, headers: res.headers };
      if (String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
        clearTimeout(timer);
        res.destroy();
        r.destroy();
        resolve({ ...base, text: '', json: null, stream: true });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = undefined;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON
        }
        resolve({ ...base, text, json, stream: false });
      });
    });
    try {
      r.end(req.body);
    } catch (err) {
      clearTimeout(timer);
      r.destroy();
      reject(new NotSendable(String(err)));
    }
  });
}

/** A short, log-friendly description of a request (long values cut). */
export function describeRequest(req: RawRequest): string {
  const cut = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
  const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k, cut(Array.isArray(v) ? v.join(' | ') : v, 120)]));
  const body = req.body === undefined ? '' : ` body=${cut(typeof req.body === 'string' ? req.body : req.body.toString('latin1'))}`;
  return `${req.method} ${cut(req.path)} headers=${JSON.stringify(headers)}${body}`;
}
