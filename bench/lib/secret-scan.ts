/**
 * Local stand-in for `findSecrets` (src/shared/logging/secret-scan.ts, being added on another branch): which of the
 * given secrets occur verbatim in a log text. Empty and very short strings are ignored (they would match anything).
 */
export function findSecrets(logText: string, secrets: readonly string[]): string[] {
  return [...new Set(secrets)].filter((s) => s.length >= 8 && logText.includes(s));
}

/** A secret as it may be printed in a report: its first 4 characters and its length. */
export const maskSecret = (s: string): string => `${s.slice(0, 4)}…(${s.length} chars)`;
