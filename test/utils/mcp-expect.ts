import type { Client } from '@modelcontextprotocol/client';
import type { DataSource } from 'typeorm';
import type { RealtimeEvent } from '../../src/shared/event-bus/events.js';
import { callTool } from './mcp-client.js';

/**
 * Expectations of the MCP tool e2e suites: the error of a refused call and what it left alone, the order-free
 * comparison of change events, and the field sets of the tools' results (docs/tool-conventions.md §5.9).
 */

/** The `{error}` of an isError tool result. */
export interface ToolError {
  code: string;
  message: string;
  [extra: string]: any;
}

/** A refused call: the parsed `{error}` of an isError result (fails the test when the call succeeded). */
export async function refusal(agent: { client: Client }, name: string, args: Record<string, unknown>): Promise<ToolError> {
  const res = await callTool(agent.client, name, args);
  expect({ isError: res.isError, name }).toEqual({ isError: true, name });
  return res.data.error;
}

/**
 * A refused call that changes nothing: an isError result with `code` and `message` (any message when not given),
 * `unchanged()` (rows, counts) reading the same before and after, and no change event recorded in `events` (the live
 * list of `world.recordEvents()`, emptied first). Returns the error for further checks.
 */
export async function expectRefused(
  events: RealtimeEvent[],
  agent: { client: Client },
  name: string,
  args: Record<string, unknown>,
  expected: { code: string; message?: string; unchanged?: () => Promise<unknown> },
): Promise<ToolError> {
  const before = expected.unchanged ? await expected.unchanged() : undefined;
  events.splice(0, events.length);
  const error = await refusal(agent, name, args);
  expect({ code: error?.code, message: error?.message }).toEqual({ code: expected.code, message: expected.message ?? expect.any(String) });
  if (expected.unchanged) expect(await expected.unchanged()).toEqual(before);
  expect(events.splice(0, events.length)).toEqual([]);
  return error;
}

/** The tables the idea, project and collaboration tools write. */
export const DOMAIN_TABLES = ['project', 'project_group', 'idea', 'elaboration_round', 'elaboration_question', 'proposal', 'task', 'document', 'comment', 'reference', 'activity', 'mention'];

/** Every row of `tables`, for "unchanged on refusal". */
export async function tableRows(ds: DataSource, tables: readonly string[] = DOMAIN_TABLES): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const t of tables) out.push(await ds.query(`SELECT * FROM "${t}" ORDER BY uuid`));
  return out;
}

/** Events compared without regard to order (the runner publishes them in recording order, which is not the contract). */
export function sortEvents(list: RealtimeEvent[]): RealtimeEvent[] {
  const key = (e: RealtimeEvent): string => `${e.entityType}:${e.entityUuid}:${e.projectUuid}:${e.action}`;
  return [...list].sort((x, y) => key(x).localeCompare(key(y)));
}

/** Field sets of docs/tool-conventions.md §5.9. */
export const TASK_SUMMARY_KEYS = ['uuid', 'projectUuid', 'proposalUuid', 'title', 'status', 'priority', 'storyPoints', 'assignee', 'acceptance', 'createdAt', 'updatedAt'];
export const TASK_RECORD_KEYS = [
  ...TASK_SUMMARY_KEYS,
  'description',
  'createdBy',
  'acceptanceCriteriaItems',
  'acceptanceStatus',
  'acceptanceSummary',
  'dependsOn',
  'dependedBy',
  'activeSessions',
  'commentCount',
  'references',
];
export const CRITERION_KEYS = ['uuid', 'description', 'required', 'sortOrder', 'devStatus', 'devEvidence', 'devMarkedBy', 'devMarkedAt', 'status', 'evidence', 'markedBy', 'markedAt'];
export const SESSION_RECORD_KEYS = ['uuid', 'agentUuid', 'name', 'description', 'status', 'lastActiveAt', 'closedAt', 'checkins', 'createdAt', 'updatedAt'];

export const sortedKeys = (o: object): string[] => Object.keys(o).sort();
export const keysOf = (list: string[]): string[] => [...list].sort();
