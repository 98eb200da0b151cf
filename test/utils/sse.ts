import http from 'node:http';
import { EventSource } from 'eventsource';

/** A real EventSource (the `eventsource` package) that sends the session cookie. */
export interface TestEventSource {
  es: EventSource;
  messages: string[];
  opened: Promise<void>;
  /** Resolves when `n` messages have arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<string[]>;
  close(): void;
}

export function openEventSource(url: string, cookie: string | null): TestEventSource {
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } }),
  });
  const messages: string[] = [];
  const waiters: Array<() => void> = [];
  es.onmessage = (e) => {
    messages.push(e.data);
    for (const w of waiters.splice(0)) w();
  };
  const opened = new Promise<void>((resolve, reject) => {
    es.onopen = () => resolve();
    es.onerror = (e) => reject(new Error(`EventSource error: ${JSON.stringify(e)}`));
  });
  return {
    es,
    messages,
    opened,
    waitFor(n: number, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${n} messages, got ${messages.length}: ${messages.join(' | ')}`)), timeoutMs);
        const check = () => {
          if (messages.length >= n) {
            clearTimeout(timer);
            resolve(messages.slice());
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => es.close(),
  };
}

/** A raw HTTP reader of an SSE response, for checking bytes, comments and headers exactly. */
export interface RawStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: () => string;
  waitForText(text: string, timeoutMs?: number): Promise<void>;
  ended: Promise<void>;
  /** Resolves once the response is over: true when it ended properly (terminating chunk received), false when it was cut (reset). */
  endedCleanly: Promise<boolean>;
  close(): void;
}

export function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      let buf = '';
      const waiters: Array<() => void> = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (const w of waiters.splice(0)) w();
      });
      const ended = new Promise<void>((r) => {
        res.on('end', () => r());
        res.on('close', () => r());
      });
      res.on('error', () => undefined);
      const endedCleanly = new Promise<boolean>((r) => res.on('close', () => r(res.complete)));
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: () => buf,
        ended,
        endedCleanly,
        waitForText(text: string, timeoutMs = 5000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`timed out waiting for ${JSON.stringify(text)}; got ${JSON.stringify(buf)}`)), timeoutMs);
            const check = () => {
              if (buf.includes(text)) {
                clearTimeout(timer);
                ok();
              } else waiters.push(check);
            };
            check();
          });
        },
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.on('error', reject);
  });
}

/** The blocks of a raw stream (`openRaw`): `{id, event, data, retry, comment}` per block, in order. */
export function blocks(raw: RawStream): Array<Record<string, string>> {
  return raw
    .body()
    .split('\n\n')
    .map((b) => b.replace(/^\n+/, ''))
    .filter((b) => b !== '')
    .map((b) => Object.fromEntries(b.split('\n').map((line) => (line.startsWith(': ') ? ['comment', line.slice(2)] : [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]))));
}
/** The ids of a raw stream's data frames (no `event:` line), in order. */
export const dataIds = (raw: RawStream) => blocks(raw).filter((b) => b.data !== undefined && b.event === undefined).map((b) => b.id);
