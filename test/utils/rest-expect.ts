import type { DataSource } from 'typeorm';
import { type ChangeEvents, compact } from './change-events.js';
import { tableCounts } from './expect-error.js';
import type { HttpResult } from './http.js';

/** Expectations of the REST e2e suites: the error envelope of a refused call, and what a call published or wrote. */

/** The error envelope of a refused call. */
export function expectError(res: HttpResult, status: number, code: string, message?: string | RegExp): void {
  expect({ status: res.status, success: res.body?.success, code: res.body?.error?.code }).toEqual({ status, success: false, code });
  if (message !== undefined) expect(res.body.error.message).toEqual(message instanceof RegExp ? expect.stringMatching(message) : message);
}

/** A 400 VALIDATION_ERROR naming `field` in its details. */
export function expectValidation(res: HttpResult, field: string, message?: string | RegExp): void {
  expectError(res, 400, 'VALIDATION_ERROR', message);
  expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}

/** A 400 VALIDATION_ERROR naming `fields` in its details. */
export function expectInvalid(res: HttpResult, ...fields: string[]): void {
  expectError(res, 400, 'VALIDATION_ERROR');
  expect(res.body.error.details).toEqual(expect.arrayContaining(fields.map((field) => expect.objectContaining({ field }))));
}

/**
 * What a call is observed through: the change stream of one company (a real EventSource opened by one of its users)
 * and the app's database.
 */
export interface Observed {
  changes: ChangeEvents;
  companyUuid: string;
  ds: DataSource;
}

/** Runs a mutation and returns its response with the change events it emitted (all of the observed company), compacted (`ev` form). */
export async function withEvents(on: Pick<Observed, 'changes' | 'companyUuid'>, call: () => Promise<HttpResult>): Promise<{ res: HttpResult; events: string[] }> {
  const { result, events } = await on.changes.during(call);
  for (const e of events) expect(e.companyUuid).toBe(on.companyUuid);
  return { res: result, events: compact(events) };
}

/**
 * A refused call: the error (status, code, message), no change event, no new or changed row in the domain tables,
 * and `read()` (a GET of the record) answering the same before and after.
 */
export async function expectRefused(
  on: Observed,
  call: () => Promise<HttpResult>,
  status: number,
  code: string,
  message?: string,
  read?: () => Promise<HttpResult>,
): Promise<HttpResult> {
  const before = read ? (await read()).body : undefined;
  const counts = await tableCounts(on.ds, ['proposal', 'task', 'document', 'acceptance_criterion', 'task_dependency', 'comment', 'reference', 'activity']);
  const { res, events } = await withEvents(on, call);
  expectError(res, status, code, message);
  expect(events).toEqual([]);
  expect(await tableCounts(on.ds, Object.keys(counts))).toEqual(counts);
  if (read) expect((await read()).body).toEqual(before);
  return res;
}
