import type { DataSource } from 'typeorm';
import { PoolLoad } from './pool-load.js';

describe('PoolLoad', () => {
  it('reads the waiting requests and the size of the driver’s pool', () => {
    const db = { driver: { master: { waitingCount: 3, options: { max: 20 } } } } as unknown as DataSource;
    expect(new PoolLoad(db).now()).toEqual({ waiting: 3, size: 20 });
  });

  it('is idle before the driver has a pool', () => {
    expect(new PoolLoad({ driver: {} } as unknown as DataSource).now()).toEqual({ waiting: 0, size: 10 });
  });
});
