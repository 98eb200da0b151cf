/** JSON-RPC code of the 429 answer (docs/platform.md §4): the generic server error; `data.code` says `RATE_LIMITED`. */
export const RATE_LIMITED_RPC_CODE = -32000;

/**
 * A transport-level refusal of `POST /api/mcp`: an HTTP status with a JSON-RPC error body (`id: null`), answered by
 * the endpoint's exception filter (docs/platform.md §4).
 */
export class McpHttpError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly data?: Record<string, unknown>,
    /** The request's id, when the body was read and had one. */
    readonly id: unknown = null,
  ) {
    super(message);
  }
}
