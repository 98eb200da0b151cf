import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stream positions and the resume log (docs/platform.md §6.2, §7).
 *
 * - `stream_head`: per stream (`c` change events per company, `n` notification frames per recipient) and key, the
 *   last position taken. A mutation takes its positions as its transaction's last statement (an upsert that adds
 *   its event count), so the row stays locked until commit: positions of one key increase in commit order, and a
 *   rollback gives its positions back with everything else.
 * - `stream_log`: every frame at its position, written by the same statement, so the log never holds a position
 *   whose mutation did not commit and never misses one that did. Pruned in the background from the bottom only.
 * - `stream_epoch`: one random token for this log; positions are `<epoch>-<n>`, so positions handed out by a log that
 *   was recreated since (a new database) are recognised as foreign and answered with `reset`.
 */
export class StreamLog1763800000000 implements MigrationInterface {
  name = 'StreamLog1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stream_epoch (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        epoch text NOT NULL
      );
      INSERT INTO stream_epoch (epoch) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 8));

      CREATE TABLE stream_head (
        stream "char" NOT NULL,
        key text NOT NULL,
        position bigint NOT NULL,
        PRIMARY KEY (stream, key)
      );

      CREATE TABLE stream_log (
        stream "char" NOT NULL,
        key text NOT NULL,
        position bigint NOT NULL,
        project_uuid uuid,
        payload text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (stream, key, position)
      );
      CREATE INDEX stream_log_created_idx ON stream_log (created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE stream_log; DROP TABLE stream_head; DROP TABLE stream_epoch;`);
  }
}
