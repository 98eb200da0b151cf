/**
 * Login throttling (docs/deploy.md, "Abuse limits"; docs/platform.md §2.1): over the last 15 minutes, 10 failures for one
 * email from one client address lock that pair; 100 failures from one address, whatever the emails, lock that
 * address; 50 failures for one email from any addresses lock that email — except from an address that signed in to
 * it successfully in the last 30 days.
 */
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;
export const LOGIN_LIMITS = { pair: 10, address: 100, email: 50 } as const;

export type LoginRule = keyof typeof LOGIN_LIMITS;

/** Broadest first: a refused login is counted once, under the widest rule that refused it. */
const RULES: readonly LoginRule[] = ['address', 'email', 'pair'];

/**
 * The failures of one attempt's pair, address and email in the window: for each rule, when the failure that keeps
 * its count at the limit happened (the limit-th most recent; `null` when the count is below the limit), and whether
 * the address signed in to the email in the last 30 days.
 */
export interface LoginFailures {
  pair: number | null;
  address: number | null;
  email: number | null;
  knownAddress: boolean;
}

export interface LoginRefusal {
  rule: LoginRule;
  /** Until every refusing rule's count is back under its limit (at least 1 s). */
  retryAfterSeconds: number;
}

/** Whether the attempt is refused, by which rule, and for how long; `null`: it may go on to the password check. */
export function loginRefusal(failures: LoginFailures, now: number): LoginRefusal | null {
  const refusing = RULES.filter((rule) => failures[rule] !== null && !(rule === 'email' && failures.knownAddress));
  if (!refusing.length) return null;
  const frees = Math.max(...refusing.map((rule) => failures[rule]! + LOGIN_WINDOW_MS));
  return { rule: refusing[0], retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) };
}
