import type { ActorType } from '../../shared/auth/actor.js';
import { Repository } from '../../shared/database/repository.js';
import { PREFERENCE_FIELDS, type NotifiedEntityType, type PreferenceField, type Ref } from './domain/notification.rules.js';

/** What generation reads about an entity after the mutation (docs/notifications.md §4.2, §4.4). */
export interface EntityRow {
  uuid: string;
  title: string;
  projectUuid: string;
  createdByType: ActorType;
  createdByUuid: string;
  assigneeType: ActorType | null;
  assigneeUuid: string | null;
  /** task */
  status: string | null;
  /** proposal */
  inputType: 'idea' | 'document' | null;
  inputUuids: string[] | null;
  reviewNote: string | null;
}

/** Per table, the columns generation needs; tables and columns are fixed here, never taken from input. */
const ENTITY_SQL: Record<NotifiedEntityType, string> = {
  task: `SELECT uuid, title, project_uuid AS "projectUuid", created_by_type AS "createdByType", created_by_uuid AS "createdByUuid",
                assignee_type AS "assigneeType", assignee_uuid AS "assigneeUuid", status,
                NULL AS "inputType", NULL AS "inputUuids", NULL AS "reviewNote"
           FROM task WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])`,
  idea: `SELECT uuid, title, project_uuid AS "projectUuid", created_by_type AS "createdByType", created_by_uuid AS "createdByUuid",
                assignee_type AS "assigneeType", assignee_uuid AS "assigneeUuid", NULL AS status,
                NULL AS "inputType", NULL AS "inputUuids", NULL AS "reviewNote"
           FROM idea WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])`,
  proposal: `SELECT uuid, title, project_uuid AS "projectUuid", created_by_type AS "createdByType", created_by_uuid AS "createdByUuid",
                NULL AS "assigneeType", NULL AS "assigneeUuid", NULL AS status,
                input_type AS "inputType", input_uuids AS "inputUuids", review_note AS "reviewNote"
           FROM proposal WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])`,
  document: `SELECT uuid, title, project_uuid AS "projectUuid", created_by_type AS "createdByType", created_by_uuid AS "createdByUuid",
                NULL AS "assigneeType", NULL AS "assigneeUuid", NULL AS status,
                NULL AS "inputType", NULL AS "inputUuids", NULL AS "reviewNote"
           FROM document WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])`,
};

/**
 * What notification generation reads after a mutation commits (docs/notifications.md §4): the notified entities of other
 * modules (read only; tables and columns fixed here), idea creators, project names, archived agents, and this
 * module's stored preferences. Every statement is scoped by company, except the archived-agent check of recipients
 * already taken from the company's rows.
 */
export class NotificationFactsRepository extends Repository {
  /** The named entities of one company, keyed `type:uuid`. */
  async entities(companyUuid: string, wanted: Iterable<{ type: NotifiedEntityType; uuid: string }>): Promise<Map<string, EntityRow>> {
    const byType = new Map<NotifiedEntityType, Set<string>>();
    for (const w of wanted) {
      const set = byType.get(w.type) ?? new Set<string>();
      set.add(w.uuid);
      byType.set(w.type, set);
    }
    const out = new Map<string, EntityRow>();
    for (const [type, uuids] of byType) {
      const rows: EntityRow[] = await this.em.query(ENTITY_SQL[type], [companyUuid, [...uuids]]);
      for (const row of rows) out.set(`${type}:${row.uuid}`, row);
    }
    return out;
  }

  /** Creators of ideas, keyed by idea uuid (proposal_submitted notifies the creators of its input ideas). */
  async ideaCreators(companyUuid: string, uuids: string[]): Promise<Map<string, Ref>> {
    const out = new Map<string, Ref>();
    if (!uuids.length) return out;
    const rows: Array<{ uuid: string; type: ActorType; creator: string }> = await this.em.query(
      'SELECT uuid, created_by_type AS type, created_by_uuid AS creator FROM idea WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])',
      [companyUuid, uuids],
    );
    for (const r of rows) out.set(r.uuid, { type: r.type, uuid: r.creator });
    return out;
  }

  /** Names of the company's projects, by uuid. */
  async projectNames(companyUuid: string, uuids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (!uuids.length) return out;
    const rows: Array<{ uuid: string; name: string }> = await this.em.query('SELECT uuid, name FROM project WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])', [
      companyUuid,
      uuids,
    ]);
    for (const r of rows) out.set(r.uuid, r.name);
    return out;
  }

  /** Which of these agents are archived (they are never notified). */
  async archivedAgents(uuids: string[]): Promise<Set<string>> {
    if (!uuids.length) return new Set();
    const rows: Array<{ uuid: string }> = await this.em.query('SELECT uuid FROM agent WHERE uuid = ANY($1::uuid[]) AND archived_at IS NOT NULL', [uuids]);
    return new Set(rows.map((r) => r.uuid));
  }

  /** Stored preferences of the given recipients, keyed `type:uuid`; a recipient without a row wants everything. */
  async preferencesOf(companyUuid: string, refs: Ref[]): Promise<Map<string, Record<PreferenceField, boolean>>> {
    const out = new Map<string, Record<PreferenceField, boolean>>();
    if (!refs.length) return out;
    const cols = PREFERENCE_FIELDS.map((f) => `p.${f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} AS "${f}"`).join(', ');
    const rows: Array<Record<PreferenceField, boolean> & { ownerType: string; ownerUuid: string }> = await this.em.query(
      `SELECT p.owner_type AS "ownerType", p.owner_uuid AS "ownerUuid", ${cols}
         FROM unnest($2::text[], $3::uuid[]) AS r(type, uuid)
         JOIN notification_preference p ON p.owner_type = r.type AND p.owner_uuid = r.uuid AND p.company_uuid = $1`,
      [companyUuid, refs.map((r) => r.type), refs.map((r) => r.uuid)],
    );
    for (const r of rows) out.set(`${r.ownerType}:${r.ownerUuid}`, r);
    return out;
  }
}
