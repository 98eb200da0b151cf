import { connect, type Socket } from 'node:net';

export interface HeldResponse {
  /** Status code, 0 when the connection closed without a status line. */
  status: number;
  headers: Record<string, string>;
  /** The body (de-chunked), parsed as JSON when it is JSON. */
  body: any;
  raw: string;
}

export interface HeldRequest {
  /** Sends the rest of the request and resolves with the answer once the server closes the connection. */
  finish(): Promise<HeldResponse>;
}

function parse(raw: string): HeldResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) return { status: 0, headers: {}, body: null, raw };
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let text = raw.slice(split + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    let out = '';
    for (let rest = text; ; ) {
      const eol = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, eol), 16);
      if (!(size > 0)) break;
      out += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    text = out;
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body, raw };
}

/**
 * A request that is in flight for as long as the test wants, over a raw socket (nothing retried or pooled): the head
 * and part of the body are sent now (for a request without a body, the head without its final blank line), the rest
 * on finish(). Sends `Connection: close`. The body is ASCII JSON.
 */
export async function openHeldRequest(
  port: number,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; json?: unknown } = {},
): Promise<HeldRequest> {
  const body = opts.json === undefined ? '' : JSON.stringify(opts.json);
  const socket: Socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let response = '';
  socket.on('data', (d: Buffer) => (response += d.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<HeldResponse>((resolve) => socket.once('close', () => resolve(parse(response))));
  const headers: Record<string, string> = { Host: `127.0.0.1:${port}`, Connection: 'close', ...(opts.headers ?? {}) };
  if (body) {
    headers['Content-Type'] ??= 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}`;
  const cut = Math.min(5, body.length);
  socket.write(body ? `${head}\r\n${body.slice(0, cut)}` : head);
  return {
    finish: () => {
      socket.write(body ? body.slice(cut) : '\r\n');
      return closed;
    },
  };
}
