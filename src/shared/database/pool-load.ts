import { Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';

/** The database pool's load at one moment: requests queued for a connection, and how many connections it holds. */
export interface PoolLoadReading {
  waiting: number;
  size: number;
}

/** pg's default pool size, assumed while the driver has no pool to ask. */
const DEFAULT_POOL_SIZE = 10;

/**
 * How busy the database pool is, for callers that adapt to it (the inbox's poll hint, docs/notifications.md §2.0). The
 * one place that knows where TypeORM keeps its pg pool (the driver's `master`).
 */
@Injectable()
export class PoolLoad {
  constructor(private readonly db: DataSource) {}

  now(): PoolLoadReading {
    const pool = (this.db.driver as unknown as { master?: Pool & { options?: { max?: number } } }).master;
    return { waiting: pool?.waitingCount ?? 0, size: pool?.options?.max ?? DEFAULT_POOL_SIZE };
  }
}
