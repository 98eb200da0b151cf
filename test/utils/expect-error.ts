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
