import { Repository } from '../../shared/database/repository.js';

/** The readiness check's one statement: whether the database answers at all. */
export class HealthRepository extends Repository {
  async ping(): Promise<void> {
    await this.em.query('SELECT 1');
  }
}
