/**
 * Finds secrets (passwords, raw API keys, session tokens) in captured log text: the check behind "secrets are never
 * logged" (docs/platform.md §9), shared by the e2e test and the soak benchmark.
 *
 * A secret counts as found when the log holds it as is, in the escaped forms a JSON or URL log line would give it,
 * base64-encoded (an `Authorization: Basic` header), or a long enough piece of it (a truncated or split copy): any
 * `fragment` consecutive characters of a secret at least `fragment + 8` long.
 */
export interface SecretScanOptions {
  /** Length of the pieces looked for; 0 looks for whole secrets only (faster on very large logs). Default 16. */
  fragment?: number;
}

/** The distinct secrets that appear in `logText`, in the order given. Empty secrets are ignored. */
export function findSecrets(logText: string, secrets: string[], options: SecretScanOptions = {}): string[] {
  const fragment = options.fragment ?? 16;
  const found: string[] = [];
  for (const secret of new Set(secrets)) {
    if (secret === '') continue;
    if (forms(secret, fragment).some((form) => logText.includes(form))) found.push(secret);
  }
  return found;
}

/** The log lines holding any of the secrets, with the secrets masked: a failure message that does not leak again. */
export function linesWithSecrets(logText: string, secrets: string[], options: SecretScanOptions = {}): string[] {
  const present = findSecrets(logText, secrets, options);
  if (present.length === 0) return [];
  const fragment = options.fragment ?? 16;
  const all = present.flatMap((s) => forms(s, fragment)).sort((a, b) => b.length - a.length);
  return logText
    .split('\n')
    .filter((line) => all.some((form) => line.includes(form)))
    .map((line) => all.reduce((masked, form) => masked.split(form).join('[SECRET]'), line));
}

function forms(secret: string, fragment: number): string[] {
  const out = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''),
  ]);
  if (fragment > 0 && secret.length >= fragment + 8) {
    for (let i = 0; i + fragment <= secret.length; i++) out.add(secret.slice(i, i + fragment));
  }
  return [...out];
}
