import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbox reads without sorting, and a per-recipient inbox row for cheap polling (docs/notifications.md §2).
 *
 * - The three partial indexes serve the list exactly in its order (`created_at DESC, uuid`): all non-archived rows,
 *   unread rows, and one project's rows. `company_uuid` is part of the key so the tenant filter every query carries
 *   never needs the heap.
 * - `notification_inbox` holds, per recipient, a version and the unread count, maintained by statement-level
 *   triggers in the same transaction as every insert, update, delete or truncate of notification rows. So both are
 *   exact whichever instance (or script) wrote the rows, concurrent writers serialise on the recipient's row, and
 *   reading them is one primary-key lookup: the ETag of a list or count derives from the version, and the unread
 *   badge no longer counts rows.
 */
export class NotificationIndexes1763795500000 implements MigrationInterface {
  name = 'NotificationIndexes1763795500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE INDEX notification_inbox_idx ON notification (recipient_type, recipient_uuid, company_uuid, created_at DESC, uuid)
        WHERE archived_at IS NULL;
      CREATE INDEX notification_inbox_unread_idx ON notification (recipient_type, recipient_uuid, company_uuid, created_at DESC, uuid)
        WHERE read_at IS NULL AND archived_at IS NULL;
      CREATE INDEX notification_inbox_project_idx ON notification (recipient_type, recipient_uuid, company_uuid, project_uuid, created_at DESC, uuid)
        WHERE archived_at IS NULL;

      CREATE TABLE notification_inbox (
        recipient_type text NOT NULL,
        recipient_uuid uuid NOT NULL,
        version bigint NOT NULL,
        unread_count integer NOT NULL,
        PRIMARY KEY (recipient_type, recipient_uuid)
      );
      INSERT INTO notification_inbox (recipient_type, recipient_uuid, version, unread_count)
        SELECT recipient_type, recipient_uuid, 1, count(*) FILTER (WHERE read_at IS NULL AND archived_at IS NULL)
          FROM notification GROUP BY 1, 2;

      -- One row per recipient touched by the statement: version + 1, unread count + the statement's delta (the
      -- proposed row carries the delta, hence no CHECK on it). Sorted so that concurrent statements lock shared
      -- recipients in the same order.
      CREATE FUNCTION notification_inbox_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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

      -- Versions keep growing (never reset), so a tag issued before a truncate never matches again.
      CREATE FUNCTION notification_inbox_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE notification_inbox SET version = version + 1, unread_count = 0;
        RETURN NULL;
      END $$;

      CREATE TRIGGER notification_inbox_insert AFTER INSERT ON notification
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_inbox_apply();
      CREATE TRIGGER notification_inbox_update AFTER UPDATE ON notification
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_inbox_apply();
      CREATE TRIGGER notification_inbox_delete AFTER DELETE ON notification
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_inbox_apply();
      CREATE TRIGGER notification_inbox_truncate AFTER TRUNCATE ON notification
        FOR EACH STATEMENT EXECUTE FUNCTION notification_inbox_truncate();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER notification_inbox_truncate ON notification;
      DROP TRIGGER notification_inbox_delete ON notification;
      DROP TRIGGER notification_inbox_update ON notification;
      DROP TRIGGER notification_inbox_insert ON notification;
      DROP FUNCTION notification_inbox_truncate();
      DROP FUNCTION notification_inbox_apply();
      DROP TABLE notification_inbox;
      DROP INDEX notification_inbox_project_idx;
      DROP INDEX notification_inbox_unread_idx;
      DROP INDEX notification_inbox_idx;
    `);
  }
}
