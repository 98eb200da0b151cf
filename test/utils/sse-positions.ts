import http from 'node:http';

/** `n` of an `id: <epoch>-<n>` position. */
export const nOf = (id: string): number => Number(id.slice(id.lastIndexOf('-') + 1));

/** A data frame as a reader received it: its position, its data, and when it arrived (Date.now()). */
export interface ReceivedFrame {
  n: number;
  data: string;
  at: number;
}

/**
 * A raw change-stream reader that records every `id:`/`data:` frame with its arrival time and, if its connection is
 * cut or ends, reconnects by itself with `Last-Event-ID` (its last id), as a browser does.
 */
export interface PositionReader {
  name: string;
  /** Position of the first connect block (the head the stream started after); null until it arrived. */
  startedAfter: number | null;
  frames: ReceivedFrame[];
  resets: number[];
  /** Connections after the first one (each a cut or end the reader recovered from). */
  reconnects: number;
  /** Non-200 answers to a (re)connect. */
  refused: number;
  lastN(): number | null;
  stop(): void;
}

/** The fields of one SSE block (comments skipped, multi-line `data` joined). */
export function parseBlock(p: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of p.split('\n')) {
    if (!line || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const k = i < 0 ? line : line.slice(0, i);
    const v = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    fields[k] = k in fields && k === 'data' ? `${fields[k]}\n${v}` : v;
  }
  return fields;
}

export function positionReader(name: string, url: string, cookie: string): PositionReader {
  let req: http.ClientRequest | null = null;
  let stopped = false;
  let lastId: string | null = null;
  let connections = 0;
  const reader: PositionReader = {
    name,
    startedAfter: null,
    frames: [],
    resets: [],
    reconnects: 0,
    refused: 0,
    lastN: () => (lastId === null ? null : nOf(lastId)),
    stop: () => {
      stopped = true;
      req?.destroy();
    },
  };
  const connect = () => {
    if (stopped) return;
    if (connections++ > 0) reader.reconnects++;
    const headers: Record<string, string> = { cookie, accept: 'text/event-stream' };
    if (lastId !== null) headers['last-event-id'] = lastId;
    req = http.get(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reader.refused++;
        res.resume();
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = Date.now();
        const parts = (buf + chunk).split('\n\n');
        buf = parts.pop() ?? '';
        for (const f of parts.map(parseBlock)) {
          if (f.id === undefined) continue;
          lastId = f.id;
          if (f.event === 'reset') reader.resets.push(nOf(f.id));
          else if (f.data !== undefined && f.data !== '') reader.frames.push({ n: nOf(f.id), data: f.data, at });
          else reader.startedAfter ??= nOf(f.id);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.on('close', () => {
      if (!stopped) setTimeout(connect, 100);
    });
  };
  connect();
  return reader;
}
