import type { World } from './world.js';
import type { DataSource } from 'typeorm';

/** Asserts a service call is refused with the given error code (and message, when given). */
export async function expectAppError(promise: Promise<unknown>, code: string, message?: string | RegExp): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeDefined();
  const e = caught as { code?: string; message?: string };
  expect({ code: e.code, message: e.message }).toEqual({ code, message: message instanceof RegExp ? expect.stringMatching(message) : (message ?? expect.any(String)) });
}

/** Row counts of the tables a refused call must leave untouched, for "unchanged on refusal" checks. */
export async function tableCounts(db: DataSource, tables: string[] = ['idea', 'elaboration_round', 'elaboration_question', 'reference', 'activity', 'proposal', 'task', 'document', 'project', 'project_group']): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM ${t}`);
    out[t] = n;
  }
  return out;
}

/**
 * Runs a call of the ideas services that must be refused with `code` (and `message`) and checks that nothing was
 * written (row counts, the idea-side tables and the items that hang off ideas) or published on the world's bus.
 */
export async function expectIdeaRefused(world: World, call: () => Promise<unknown>, code: string, message?: string): Promise<void> {
  const ds = world.ds;
  world.h.takeEvents();
  const before = await tableCounts(ds);
  const snapshot = async (): Promise<unknown[]> => [
    await ds.query(`SELECT * FROM idea ORDER BY uuid`),
    await ds.query(`SELECT * FROM elaboration_round ORDER BY uuid`),
    await ds.query(`SELECT * FROM elaboration_question ORDER BY uuid`),
    await ds.query(`SELECT uuid, project_uuid, updated_at FROM proposal ORDER BY uuid`),
    await ds.query(`SELECT uuid, project_uuid, updated_at FROM task ORDER BY uuid`),
    await ds.query(`SELECT uuid, project_uuid, updated_at FROM document ORDER BY uuid`),
  ];
  const rows = await snapshot();
  await expectAppError(call(), code, message);
  expect(await tableCounts(ds)).toEqual(before);
  expect(await snapshot()).toEqual(rows);
  expect(world.h.takeEvents()).toEqual([]);
}
