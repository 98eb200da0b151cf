import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { DataSource, type EntityManager } from 'typeorm';
import { AppConfig } from '../../config/config.js';
import { preparedQuery, type PreparedStatement } from '../database/prepared.js';
import { LOGGER } from '../logging/logger.js';
import { formatPosition, type StreamName } from './position.js';

export type { StreamName } from './position.js';

/** One frame to log: its key (company, or recipient), the change's project (null for notifications), its JSON. */
export interface LogEntry {
  key: string;
  projectUuid: string | null;
  payload: string;
}

/** A logged frame read back for a replay or a repair. */
export interface LoggedFrame {
  n: number;
  projectUuid: string | null;
  payload: string;
}

/**
 * Takes the positions of a transaction's frames and logs them, in one statement that must be the transaction's last
 * (so the heads it locks are held only until commit). Heads are taken in key order, so transactions touching several
 * recipients never deadlock on them; each key's entries get consecutive positions in entry order.
 */
const APPEND_SQL = `
  WITH e AS (SELECT * FROM unnest($2::text[], $3::uuid[], $4::text[]) WITH ORDINALITY AS e(key, project_uuid, payload, ord)),
       c AS (SELECT key, count(*)::bigint AS n FROM e GROUP BY key),
       head AS (INSERT INTO stream_head AS h (stream, key, position)
                  SELECT $1, key, n FROM c ORDER BY key
                ON CONFLICT (stream, key) DO UPDATE SET position = h.position + EXCLUDED.position
                RETURNING key, position),
       logged AS (INSERT INTO stream_log (stream, key, position, project_uuid, payload)
                    SELECT $1, e.key, head.position - c.n + row_number() OVER (PARTITION BY e.key ORDER BY e.ord), e.project_uuid, e.payload
                      FROM e JOIN c USING (key) JOIN head USING (key))
  SELECT key, position::text AS position FROM head`;
/** The append as a named prepared statement: parsed and planned once per connection. */
const APPEND: PreparedStatement = { name: 'svc_stream_append', text: APPEND_SQL };

/**
 * Deletes, per key, what is both older than the retention time and below the last `count` positions — from the bottom
 * only (everything under the key's oldest young-enough row), so the log never gets a hole in the middle.
 */
const PRUNE_SQL = `
  WITH old AS (SELECT DISTINCT stream, key FROM stream_log WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)),
       cut AS (SELECT o.stream, o.key,
                      LEAST(h.position - $2,
                            COALESCE((SELECT min(y.position) FROM stream_log y
                                       WHERE y.stream = o.stream AND y.key = o.key
                                         AND y.created_at >= now() - make_interval(secs => $1::double precision / 1000)),
                                     h.position + 1) - 1) AS upto
                 FROM old o JOIN stream_head h USING (stream, key)),
       gone AS (DELETE FROM stream_log l USING cut WHERE l.stream = cut.stream AND l.key = cut.key AND l.position <= cut.upto RETURNING 1)
  SELECT count(*)::int AS n FROM gone`;

/** The scheduler's name of the pruning interval. */
const PRUNE_INTERVAL = 'stream-log-prune';

/** Only one instance prunes at a time (transaction-scoped advisory lock, skipped when busy). */
const PRUNE_LOCK = 0x5e_57_10_90;

/**
 * The resume log of both streams (docs/platform.md §6.2): positions per company (`c`) and per recipient (`n`), increasing
 * in commit order and equal on every instance, and the frames at them, kept for at least STREAM_LOG_RETENTION.
 */
@Injectable()
export class StreamLog implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private epochValue: string | null = null;
  private epochLoading: Promise<string> | null = null;
  private pruning = false;

  constructor(
    private readonly db: DataSource,
    private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  /**
   * Prunes in the background on the framework's scheduler, at half the retention time (1 s to a minute): a dynamic
   * interval, as the period comes from configuration.
   */
  onApplicationBootstrap(): void {
    const every = Math.max(1000, Math.min(60_000, Math.floor(this.config.streamLogRetentionMs / 2)));
    const timer = setInterval(() => void this.prune().catch((err: unknown) => this.logger.warn({ err: String(err) }, 'stream log pruning failed')), every);
    timer.unref();
    this.scheduler.addInterval(PRUNE_INTERVAL, timer);
  }

  /** Shutdown begins: no pruning while the database closes. */
  beforeApplicationShutdown(): void {
    this.stopPruning();
  }

  stopPruning(): void {
    if (this.scheduler.doesExist('interval', PRUNE_INTERVAL)) this.scheduler.deleteInterval(PRUNE_INTERVAL);
  }

  /** The log's epoch (read once). */
  async epoch(): Promise<string> {
    if (this.epochValue !== null) return this.epochValue;
    this.epochLoading ??= this.db.query(`SELECT epoch FROM stream_epoch`).then((rows: Array<{ epoch: string }>) => {
      if (!rows.length) throw new Error('stream_epoch is empty');
      this.epochValue = rows[0].epoch;
      return this.epochValue;
    });
    try {
      return await this.epochLoading;
    } finally {
      this.epochLoading = null;
    }
  }

  /** The epoch once known (after the first read), else null. */
  get knownEpoch(): string | null {
    return this.epochValue;
  }

  /**
   * Inside the writing transaction, as its last statement: positions for `entries` (returned formatted, in entry
   * order) and their log rows.
   */
  async append(em: EntityManager, stream: StreamName, entries: readonly LogEntry[]): Promise<string[]> {
    if (!entries.length) return [];
    const epoch = await this.epoch();
    // Prepared on the transaction's connection: every mutation with a change event ends with it.
    const rows = await preparedQuery<{ key: string; position: string }>(em, APPEND, [
      stream,
      entries.map((e) => e.key),
      entries.map((e) => e.projectUuid),
      entries.map((e) => e.payload),
    ]);
    const head = new Map(rows.map((r) => [r.key, Number(r.position)]));
    const count = new Map<string, number>();
    for (const e of entries) count.set(e.key, (count.get(e.key) ?? 0) + 1);
    // Each key's entries hold the last `count` positions up to its new head, in entry order.
    const next = new Map([...count].map(([key, n]) => [key, head.get(key)! - n + 1]));
    return entries.map((e) => {
      const n = next.get(e.key)!;
      next.set(e.key, n + 1);
      return formatPosition(epoch, n);
    });
  }

  /**
   * Inside a writing transaction, as its first statement: takes the next position of each key (one per key, heads
   * locked in key order, held until commit) for a write that needs its position before it knows its frame (the
   * notification inbox stamps the rows it changes with it). The transaction must then `record` one frame per key, or
   * roll back (which gives the positions back, so a key's positions stay gap-free).
   */
  async reserve(em: EntityManager, stream: StreamName, keys: readonly string[]): Promise<Map<string, number>> {
    const sorted = [...new Set(keys)].sort();
    if (!sorted.length) return new Map();
    const rows: Array<{ key: string; position: string }> = await em.query(
      `INSERT INTO stream_head AS h (stream, key, position) SELECT $1, k, 1 FROM unnest($2::text[]) AS k ORDER BY k
       ON CONFLICT (stream, key) DO UPDATE SET position = h.position + 1
       RETURNING key, position::text AS position`,
      [stream, sorted],
    );
    return new Map(rows.map((r) => [r.key, Number(r.position)]));
  }

  /** Logs frames at positions taken by `reserve` in the same transaction; returns them formatted, in entry order. */
  async record(em: EntityManager, stream: StreamName, entries: ReadonlyArray<LogEntry & { n: number }>): Promise<string[]> {
    if (!entries.length) return [];
    const epoch = await this.epoch();
    await em.query(
      `INSERT INTO stream_log (stream, key, position, project_uuid, payload)
       SELECT $1, e.key, e.n, e.project_uuid, e.payload FROM unnest($2::text[], $3::bigint[], $4::uuid[], $5::text[]) AS e(key, n, project_uuid, payload)`,
      [stream, entries.map((e) => e.key), entries.map((e) => e.n), entries.map((e) => e.projectUuid), entries.map((e) => e.payload)],
    );
    return entries.map((e) => formatPosition(epoch, e.n));
  }

  /** Current heads of the given keys (0 for a key that never had a frame). */
  async heads(stream: StreamName, keys: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>(keys.map((k) => [k, 0]));
    if (!keys.length) return out;
    const rows: Array<{ key: string; position: string }> = await this.db.query(
      `SELECT key, position::text AS position FROM stream_head WHERE stream = $1 AND key = ANY($2::text[])`,
      [stream, keys],
    );
    for (const r of rows) out.set(r.key, Number(r.position));
    return out;
  }

  /** Logged frames of one key with `after < n <= upTo`, oldest first, at most `limit`. */
  async read(stream: StreamName, key: string, after: number, upTo: number, limit: number): Promise<LoggedFrame[]> {
    const rows: Array<{ position: string; project_uuid: string | null; payload: string }> = await this.db.query(
      `SELECT position::text AS position, project_uuid, payload FROM stream_log
        WHERE stream = $1 AND key = $2 AND position > $3 AND position <= $4 ORDER BY stream_log.position LIMIT $5`,
      [stream, key, after, upTo, limit],
    );
    return rows.map((r) => ({ n: Number(r.position), projectUuid: r.project_uuid, payload: r.payload }));
  }

  /** One pruning pass; returns the rows deleted (0 when another instance is pruning). */
  async prune(): Promise<number> {
    if (this.pruning) return 0;
    this.pruning = true;
    try {
      return await this.db.transaction(async (em) => {
        const [lock]: Array<{ ok: boolean }> = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS ok`, [PRUNE_LOCK]);
        if (!lock.ok) return 0;
        const [r]: Array<{ n: number }> = await em.query(PRUNE_SQL, [this.config.streamLogRetentionMs, this.config.streamLogRetentionCount]);
        return r.n;
      });
    } finally {
      this.pruning = false;
    }
  }
}
