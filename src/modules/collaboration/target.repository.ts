import { Repository } from '../../shared/database/repository.js';
import type { TargetType } from './target.js';

/** Table names are fixed here, never taken from input. */
const TABLES: Record<TargetType, string> = { idea: 'idea', proposal: 'proposal', task: 'task', document: 'document' };

/**
 * What comments, references and activities hang off, read with plain SQL from the owners' tables (README "Table
 * ownership": reading another module's table is fine; those modules build on this one).
 */
export class TargetRepository extends Repository {
  /** The target's project and title, or undefined; `lock` takes FOR UPDATE. */
  async projectAndTitle(type: TargetType, uuid: string, companyUuid: string, lock: boolean): Promise<{ project_uuid: string; title: string } | undefined> {
    const rows: Array<{ project_uuid: string; title: string }> = await this.em.query(
      `SELECT project_uuid, title FROM ${TABLES[type]} WHERE uuid = $1 AND company_uuid = $2${lock ? ' FOR UPDATE' : ''}`,
      [uuid, companyUuid],
    );
    return rows[0];
  }
}
