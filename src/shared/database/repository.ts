import type { Provider } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A repository (docs/architecture.md "Repositories"): the SQL of one aggregate, owned by its module, around an
 * EntityManager — the pool's for reads, a mutation's for its transaction (`in(tx)`), so the same statements run in
 * either. Application services and steps orchestrate and call these; they hold no SQL.
 */
export abstract class Repository {
  constructor(protected readonly em: EntityManager) {}

  /** The same repository on a mutation's transaction. */
  in<R extends Repository>(this: R, tx: { manager: EntityManager }): R {
    return new (this.constructor as new (em: EntityManager) => R)(tx.manager);
  }

  /**
   * Runs `work` in a transaction of its own, on this repository bound to it: for a caller whose transaction touches
   * no other module's rows and dispatches no event (a mutation that does uses the `TransactionRunner`).
   */
  transaction<R extends Repository, T>(this: R, work: (repo: R) => Promise<T>): Promise<T> {
    return this.em.transaction((manager) => work(this.in({ manager })));
  }
}

/** Nest provider of a repository on the pool's manager (inject it; `in(tx)` inside a transaction). */
export function repositoryProvider<R extends Repository>(type: new (em: EntityManager) => R): Provider {
  return { provide: type, inject: [DataSource], useFactory: (db: DataSource) => new type(db.manager) };
}
