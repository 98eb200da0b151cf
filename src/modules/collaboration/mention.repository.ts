import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { Repository } from '../../shared/database/repository.js';
import { MentionEntity } from './collaboration.entity.js';

/**
 * The `mention` table (README "Table ownership": collaboration owns it), and who may be mentioned: users and
 * non-archived agents, read with plain SQL from the identity module's tables.
 */
export class MentionRepository extends Repository {
  async add(rows: Array<QueryDeepPartialEntity<MentionEntity>>): Promise<void> {
    await this.em.createQueryBuilder().insert().into(MentionEntity).values(rows).execute();
  }

  /** The company's users among `uuids`. */
  async users(companyUuid: string, uuids: string[]): Promise<string[]> {
    const rows: Array<{ uuid: string }> = await this.em.query('SELECT uuid FROM app_user WHERE company_uuid = $1 AND uuid = ANY($2::uuid[])', [companyUuid, uuids]);
    return rows.map((r) => r.uuid);
  }

  /** The company's non-archived agents among `uuids`. */
  async activeAgents(companyUuid: string, uuids: string[]): Promise<string[]> {
    const rows: Array<{ uuid: string }> = await this.em.query('SELECT uuid FROM agent WHERE company_uuid = $1 AND archived_at IS NULL AND uuid = ANY($2::uuid[])', [
      companyUuid,
      uuids,
    ]);
    return rows.map((r) => r.uuid);
  }
}
