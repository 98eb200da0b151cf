import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbox reads without sorting and a per-recipient version for cheap conditional polling (notifications.md §2).
 *
 * - The three partial indexes serve the list exactly in its order (`created_at DESC, uuid`): all non-archived rows,
 *   unread rows (also an index-only count of the unread badge) and one project's rows. `company_uuid` is part of
 *   the key so the tenant filter every query carries never needs the heap.
 * - `notification_version` holds one counter per recipient, bumped by statement-level triggers in the same
 *   transaction as any insert, update or delete of that recipient's rows. The ETag of a list or count is derived
 *   from it, so it changes whenever the answer can change, whichever instance (or script) wrote the rows; reading
 *   it is one primary-key lookup.
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

      CREATE TABLE notification_version (
        recipient_type text NOT NULL,
        recipient_uuid uuid NOT NULL,
        version bigint NOT NULL,
        PRIMARY KEY (recipient_type, recipient_uuid)
      );

      CREATE FUNCTION notification_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- Sorted so that concurrent batches lock the counters of shared recipients in the same order.
        INSERT INTO notification_version AS v (recipient_type, recipient_uuid, version)
          SELECT DISTINCT recipient_type, recipient_uuid, 1 FROM changed_rows ORDER BY 1, 2
        ON CONFLICT (recipient_type, recipient_uuid) DO UPDATE SET version = v.version + 1;
        RETURN NULL;
      END $$;

      CREATE TRIGGER notification_version_insert AFTER INSERT ON notification
        REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_bump_version();
      CREATE TRIGGER notification_version_update AFTER UPDATE ON notification
        REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_bump_version();
      CREATE TRIGGER notification_version_delete AFTER DELETE ON notification
        REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notification_bump_version();
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TRIGGER notification_version_delete ON notification;
      DROP TRIGGER notification_version_update ON notification;
      DROP TRIGGER notification_version_insert ON notification;
      DROP FUNCTION notification_bump_version();
      DROP TABLE notification_version;
      DROP INDEX notification_inbox_project_idx;
      DROP INDEX notification_inbox_unread_idx;
      DROP INDEX notification_inbox_idx;
    `);
  }
}
