import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PREFERENCE_FIELDS, type PreferenceField } from './domain/notification.rules.js';
import type { NotificationPreferences } from './notification.records.js';
import type { Recipient } from './notification.repository.js';

/** Column of each preference field: fixed here, never taken from input. */
const COLUMN: Record<PreferenceField, string> = Object.fromEntries(PREFERENCE_FIELDS.map((f) => [f, f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)])) as Record<
  PreferenceField,
  string
>;
const SELECT = `uuid, owner_type AS "ownerType", owner_uuid AS "ownerUuid", ${PREFERENCE_FIELDS.map((f) => `${COLUMN[f]} AS "${f}"`).join(', ')}`;

/** One row of preferences per recipient (docs/notifications.md §6), created lazily with every field true. */
@Injectable()
export class NotificationPreferenceRepository {
  constructor(private readonly db: DataSource) {}

  async find(r: Recipient): Promise<NotificationPreferences | null> {
    const rows: NotificationPreferences[] = await this.db.query(
      `SELECT ${SELECT} FROM notification_preference WHERE owner_type = $1 AND owner_uuid = $2 AND company_uuid = $3`,
      [r.type, r.uuid, r.companyUuid],
    );
    return rows[0] ?? null;
  }

  /** The default row, unless one exists (a concurrent first read may win the insert). */
  async createDefault(r: Recipient): Promise<void> {
    await this.db.query(
      `INSERT INTO notification_preference (uuid, company_uuid, owner_type, owner_uuid) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner_type, owner_uuid) DO NOTHING`,
      [randomUUID(), r.companyUuid, r.type, r.uuid],
    );
  }

  /** Sets the given fields (at least one), creating the row with the others at their defaults; the row after. */
  async update(r: Recipient, patch: Partial<Record<PreferenceField, boolean>>): Promise<NotificationPreferences> {
    const fields = PREFERENCE_FIELDS.filter((f) => patch[f] !== undefined);
    const cols = fields.map((f) => COLUMN[f]);
    const rows: NotificationPreferences[] = await this.db.query(
      `INSERT INTO notification_preference (uuid, company_uuid, owner_type, owner_uuid, ${cols.join(', ')})
       VALUES ($1, $2, $3, $4, ${cols.map((_, i) => `$${i + 5}`).join(', ')})
       ON CONFLICT (owner_type, owner_uuid) DO UPDATE SET ${cols.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, updated_at = now()
       RETURNING ${SELECT}`,
      [randomUUID(), r.companyUuid, r.type, r.uuid, ...fields.map((f) => patch[f])],
    );
    return rows[0];
  }
}
