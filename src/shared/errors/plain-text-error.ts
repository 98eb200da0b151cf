/**
 * An error the exception filter answers with a plain-text body instead of the JSON envelope: the SSE routes'
 * failures before the stream starts (docs/platform.md §6.2: `401 Unauthorized`, `400 Invalid projectUuid`), which an
 * EventSource or a proxy log shows as they are.
 */
export class PlainTextError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
    /** Extra response headers (`Retry-After` of a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(text);
  }
}
