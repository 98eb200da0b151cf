import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The agent inbox (docs/notifications.md §1, §2.0): deltas by position, snooze and the watermark read-all.
 *
 * - `position`: the recipient's stream position of the row's latest change (new, read, archive, snooze, unarchive,
 *   wake-up), taken in the changing transaction; a delta is the rows with `position > after`, read off
 *   `notification_delta_idx` in the delta's own order (no sort: its LIMIT stops the scan, however long the delta).
 *   Rows from before this migration have 0 (they predate every position handed out).
 * - `arrival_position`: the position at which the row arrived or last woke up; read-all `upTo` marks only rows at or
 *   before it.
 * - `snoozed_until`: set while snoozed. A snoozed row is not unread and not listed; the wake-up (a write like any
 *   other, found through `notification_snooze_idx`) clears it. The inbox triggers count unread rows with the new rule,
 *   and the list indexes leave snoozed rows out, as the lists do.
 */
export class InboxDeltas1763810000000 implements MigrationInterface {
  name = 'InboxDeltas1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE notification
        ADD COLUMN snoozed_until timestamptz,
        ADD COLUMN position bigint NOT NULL DEFAULT 0,
        ADD COLUMN arrival_position bigint NOT NULL DEFAULT 0;

      CREATE INDEX notification_delta_idx ON notification (recipient_type, recipient_uuid, company_uuid, position, created_at, uuid);
      CREATE INDEX notification_snooze_idx ON notification (snoozed_until) WHERE snoozed_until IS NOT NULL;

      DROP INDEX notification_inbox_idx;
      DROP INDEX notification_inbox_unread_idx;
      DROP INDEX notification_inbox_project_idx;
      CREATE INDEX notification_inbox_idx ON notification (recipient_type, recipient_uuid, company_uuid, created_at DESC, uuid)
        WHERE archived_at IS NULL AND snoozed_until IS NULL;
      CREATE INDEX notification_inbox_unread_idx ON notification (recipient_type, recipient_uuid, company_uuid, created_at DESC, uuid)
        WHERE read_at IS NULL AND archived_at IS NULL AND snoozed_until IS NULL;
      CREATE INDEX notification_inbox_project_idx ON notification (recipient_type, recipient_uuid, company_uuid, project_uuid, created_at DESC, uuid)
        WHERE archived_at IS NULL AND snoozed_until IS NULL;

      CREATE OR REPLACE FUNCTION notification_inbox_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO notification_inbox AS i (recipient_type, recipient_uuid, version, unread_count)
            SELECT recipient_type, recipient_uuid, 1,
                   count(*) FILTER (WHERE read_at IS NULL AND archived_at IS NULL AND snoozed_until IS NULL)
              FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (recipient_type, recipient_uuid)
            DO UPDATE SET version = i.version + 1, unread_count = i.unread_count + EXCLUDED.unread_count;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO notification_inbox AS i (recipient_type, recipient_uuid, version, unread_count)
            SELECT recipient_type, recipient_uuid, 1, sum(delta)
              FROM (SELECT recipient_type, recipient_uuid,
                           (read_at IS NULL AND archived_at IS NULL AND snoozed_until IS NULL)::int AS delta FROM new_rows
                    UNION ALL
                    SELECT recipient_type, recipient_uuid,
                           -(read_at IS NULL AND archived_at IS NULL AND snoozed_until IS NULL)::int FROM old_rows) AS d
             GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (recipient_type, recipient_uuid)
            DO UPDATE SET version = i.version + 1, unread_count = i.unread_count + EXCLUDED.unread_count;
        ELSE
          INSERT INTO notification_inbox AS i (recipient_type, recipient_uuid, version, unread_count)
            SELECT recipient_type, recipient_uuid, 1,
                   -count(*) FILTER (WHERE read_at IS NULL AND archived_at IS NULL AND snoozed_until IS NULL)
              FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (recipient_type, recipient_uuid)
            DO UPDATE SET version = i.version + 1, unread_count = i.unread_count + EXCLUDED.unread_count;
        END IF;
        RETURN NULL;
      END $$;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION notification_inbox_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO notification_inbox AS i (recipient_type, recipient_uuid, version, unread_count)
            SELECT recipient_type, recipient_uuid, 1, count(*) FILTER (WHERE read_at IS NULL AND archived_at IS NULL)
              FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (recipient_type, recipient_uuid)
            DO UPDATE SET version = i.version + 1, unread_count = i.unread_count + EXCLUDED.unread_count;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO notification_inbox AS i (recipient_type, recipient_uuid, version, unread_count)
            SELECT recipient_type, recipient_uuid, 1, sum(delta)
              FROM (SELECT recipient_type, recipient_uuid, (read_at IS NULL AND archived_at IS NULL)::int AS delta FROM new_rows
                    UNION ALL
                    SELECT recipient_type, recipient_uuid, -(read_at IS NULL AND archived_at IS NULL)::int FROM old_rows) AS d
             GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (recipient_type, recipient_uuid)
            DO UPDATE SET version = i.version + 1, unread_count = i.unread_count + EXCLUDED.unread_count;
        ELSE
          INSERT INTO notification_inbox AS i (recipient_type, recipient_uuid, version, unread_count)
            SELECT recipient_type, recipient_uuid, 1, -count(*) FILTER (WHERE read_at IS NULL AND archived_at IS NULL)
              FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
          ON CONFLICT (recipient_type, recipient_uuid)
            DO UPDATE SET version = i.version + 1, unread_count = i.unread_count + EXCLUDED.unread_count;
        END IF;
        RETURN NULL;
      END $$;
      DROP INDEX notification_inbox_project_idx;
      DROP INDEX notification_inbox_unread_idx;
      DROP INDEX notification_inbox_idx;
      CREATE INDEX notification_inbox_idx ON notification (recipient_type, recipient_uuid, company_uuid, created_at DESC, uuid)
        WHERE archived_at IS NULL;
      CREATE INDEX notification_inbox_unread_idx ON notification (recipient_type, recipient_uuid, company_uuid, created_at DESC, uuid)
        WHERE read_at IS NULL AND archived_at IS NULL;
      CREATE INDEX notification_inbox_project_idx ON notification (recipient_type, recipient_uuid, company_uuid, project_uuid, created_at DESC, uuid)
        WHERE archived_at IS NULL;
      DROP INDEX notification_snooze_idx;
      DROP INDEX notification_delta_idx;
      ALTER TABLE notification DROP COLUMN arrival_position, DROP COLUMN position, DROP COLUMN snoozed_until;
    `);
  }
}
