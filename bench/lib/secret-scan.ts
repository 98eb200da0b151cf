/**
 * Local stand-in for `findSecrets` (src/shared/logging/secret-scan.ts, added on another branch and not in this one),
 * with the same call shape: the distinct secrets that occur in a log text — verbatim, JSON-escaped or URL-encoded.
 * Unlike the shared one it does not look for base64 forms or fragments. Secrets shorter than 8 characters are ignored.
 */
export function findSecrets(logText: string, secrets: string[]): string[] {
  return [...new Set(secrets)].filter(
    (s) => s.length >= 8 && [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)].some((form) => logText.includes(form)),
  );
}

/** A secret as it may be printed in a report: its first 4 characters and its length. */
export const maskSecret = (s: string): string => `${s.slice(0, 4)}…(${s.length} chars)`;
