import { In } from 'typeorm';
import { Repository } from '../../shared/database/repository.js';
import { findInCompany } from '../../shared/database/tenant.js';
import { ReferenceEntity, type ReferenceTargetType } from './collaboration.entity.js';

type Target = { companyUuid: string; targetType: ReferenceTargetType; targetUuid: string };

/** The `reference` table (README "Table ownership": collaboration owns it), tenant-scoped. */
export class ReferenceRepository extends Repository {
  /** The target's references, oldest first. */
  ofTarget(target: Target): Promise<ReferenceEntity[]> {
    return this.em.find(ReferenceEntity, { where: target, order: { createdAt: 'ASC', uuid: 'ASC' } });
  }

  total(target: Target): Promise<number> {
    return this.em.count(ReferenceEntity, { where: target });
  }

  /**
   * Attaches references one statement per row, stamped with clock_timestamp(): `createdAt` then follows input order
   * even inside one transaction (now() would give every row the same time). Returns the stored rows in that order.
   */
  async add(rows: Array<Omit<ReferenceEntity, 'createdAt' | 'updatedAt'>>): Promise<ReferenceEntity[]> {
    for (const row of rows) {
      await this.em
        .createQueryBuilder()
        .insert()
        .into(ReferenceEntity)
        .values({ ...row, createdAt: () => 'clock_timestamp()', updatedAt: () => 'clock_timestamp()' })
        .execute();
    }
    const stored = await this.em.find(ReferenceEntity, { where: { uuid: In(rows.map((r) => r.uuid)) } });
    const byUuid = new Map(stored.map((r) => [r.uuid, r]));
    return rows.map((r) => byUuid.get(r.uuid)!);
  }

  /** The reference row, locked FOR UPDATE for the mutation. */
  lock(uuid: string, companyUuid: string): Promise<ReferenceEntity> {
    return findInCompany(this.em, ReferenceEntity, uuid, companyUuid, 'Reference', true);
  }

  /** Writes the changed row back; returns it as stored. */
  store(row: ReferenceEntity): Promise<ReferenceEntity> {
    return this.em.save(row);
  }

  async remove(uuid: string, companyUuid: string): Promise<void> {
    await this.em.delete(ReferenceEntity, { uuid, companyUuid });
  }

  /** Removes the references of the targets. */
  async removeFor(companyUuid: string, targetType: ReferenceTargetType, targetUuids: string[]): Promise<void> {
    await this.em.delete(ReferenceEntity, { companyUuid, targetType, targetUuid: In(targetUuids) });
  }
}
