/**
 * Stream positions (docs/platform.md §6.2): `<epoch>-<n>`, `epoch` the log's random token, `n` the per-key counter.
 * Clients treat them as opaque; the service compares `n` within one epoch.
 */
export type StreamName = 'c' | 'n';

const POSITION = /^([0-9a-z]{1,16})-(0|[1-9][0-9]{0,14})$/;

export function formatPosition(epoch: string, n: number): string {
  return `${epoch}-${n}`;
}

/** The position's counter, or null when it is malformed (any epoch). */
export function parsePosition(value: string): { epoch: string; n: number } | null {
  const m = POSITION.exec(value);
  return m ? { epoch: m[1], n: Number(m[2]) } : null;
}

/** Position key of a notification recipient (the change stream's key is the company uuid). */
export const recipientKey = (type: 'user' | 'agent', uuid: string): string => `${type}:${uuid}`;
