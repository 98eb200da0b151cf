import type { RawRequest, RawResponse } from './raw-http.js';

/**
 * The documented error codes and their statuses (docs/platform.md §5). SERVICE_UNAVAILABLE and
 * INTERNAL_ERROR are documented too, but the database is up during fuzzing, so either one is a defect here.
 */
export const REST_ERROR_STATUS: Record<string, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BAD_REQUEST: 400,
  VALIDATION_ERROR: 400,
  INVALID_STATE: 409,
  BLOCKED: 409,
  CRITERIA_NOT_PASSED: 409,
  PROPOSAL_INVALID: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
};

/** docs/tool-conventions.md §1.4: codes of an `isError` tool result (INTERNAL_ERROR / SERVICE_UNAVAILABLE excluded, as above). */
export const TOOL_ERROR_CODES = new Set(['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', 'INVALID_STATE', 'BLOCKED', 'CRITERIA_NOT_PASSED', 'PROPOSAL_INVALID', 'CONFLICT']);

/** Code-specific extra fields an error may carry besides code and message (docs/tool-conventions.md §1.4, §1.5 hints, docs/platform.md §5). */
const ERROR_EXTRAS = new Set(['details', 'blockers', 'acceptanceSummary', 'issues', 'hints']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems with an `{code, message, …}` error object (`status` given for REST: it must match the code). */
export function errorObjectProblems(error: unknown, codes: ReadonlySet<string>, status?: number): string[] {
  if (!isObject(error)) return [`error is not an object: ${JSON.stringify(error)}`];
  const out: string[] = [];
  if (typeof error.code !== 'string' || !codes.has(error.code)) out.push(`undocumented error code ${JSON.stringify(error.code)}`);
  else if (status !== undefined && REST_ERROR_STATUS[error.code] !== status) out.push(`code ${error.code} answered with HTTP ${status} (documented: ${REST_ERROR_STATUS[error.code]})`);
  if (typeof error.message !== 'string' || error.message.length === 0) out.push(`error message missing: ${JSON.stringify(error.message)}`);
  const unexpected = Object.keys(error).filter((k) => k !== 'code' && k !== 'message' && !ERROR_EXTRAS.has(k));
  if (unexpected.length) out.push(`unexpected error fields ${unexpected.join(', ')}`);
  if (error.details !== undefined) {
    if (!Array.isArray(error.details) || !error.details.every((d) => isObject(d) && typeof d.message === 'string')) out.push(`malformed details ${JSON.stringify(error.details).slice(0, 200)}`);
  }
  return out;
}

const REST_CODES = new Set(Object.keys(REST_ERROR_STATUS));

/** Where the REST envelope applies: every `/api/…` route except the tool endpoint, the SSE streams and the docs. */
export function isEnvelopedPath(path: string): boolean {
  const p = path.split('?')[0];
  return p.startsWith('/api/') && !/^\/api\/(mcp|events|docs)(\/|$|\.)/.test(p);
}

/**
 * What every REST answer must satisfy: no 5xx; an enveloped route answers `{success:false, error:{code,message}}`
 * with a documented code matching the status, or `{success:true, data}` (304 without a body); 405 names `Allow`.
 */
export function restProblems(req: RawRequest, res: RawResponse): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  const p = req.path;
  if (res.stream) {
    if (res.status !== 200) out.push(`event stream with status ${res.status}`);
    return out;
  }
  // The SSE streams answer in plain text (docs/platform.md §2.4, §6.2): 401 `Unauthorized`, 400 `Invalid projectUuid`.
  if (/^\/api\/events(\/|$|\?)/.test(p) && req.method === 'GET' && (res.status === 401 || res.status === 400)) {
    const expected = res.status === 401 ? 'Unauthorized' : 'Invalid projectUuid';
    if (res.text !== expected || !String(res.headers['content-type']).startsWith('text/plain')) out.push(`SSE ${res.status} body ${JSON.stringify(res.text.slice(0, 100))} (expected plain text ${expected})`);
    return out;
  }
  if (req.method === 'HEAD') return out;
  if (/^\/api\/mcp(\/|$|\?)/.test(p)) return [...out, ...rpcEnvelopeProblems(res)];
  if (!isEnvelopedPath(p) && !/^\/api\/events/.test(p)) return out;
  if (req.method === 'HEAD' || res.status === 304 || (res.status === 204 && req.method === 'OPTIONS')) return out;
  const body = res.json;
  if (!isObject(body)) return [...out, `not a JSON envelope (HTTP ${res.status}): ${JSON.stringify(res.text.slice(0, 200))}`];
  if (res.status >= 400) {
    if (body.success !== false) out.push(`error status ${res.status} without success:false`);
    out.push(...errorObjectProblems(body.error, REST_CODES, res.status));
    if (res.status === 405 && !res.headers.allow) out.push('405 without an Allow header');
    if (res.status === 429 && !res.headers['retry-after']) out.push('429 without Retry-After');
  } else if (res.status >= 200 && res.status < 300) {
    if (body.success !== true || !('data' in body)) out.push(`success status ${res.status} without {success:true, data}: ${res.text.slice(0, 200)}`);
  } else {
    out.push(`unexpected status ${res.status}`);
  }
  return out;
}

/** A JSON-RPC error answer of the tool endpoint's transport (docs/platform.md §4). */
export function rpcEnvelopeProblems(res: RawResponse): string[] {
  const out: string[] = [];
  if (res.status === 202) return res.text === '' ? out : [`202 with a body: ${res.text.slice(0, 100)}`];
  const body = res.json;
  if (!isObject(body) || body.jsonrpc !== '2.0') return [`not a JSON-RPC answer (HTTP ${res.status}): ${JSON.stringify(res.text.slice(0, 200))}`];
  if (res.status >= 400) {
    if (!isObject(body.error) || typeof body.error.code !== 'number' || typeof body.error.message !== 'string') out.push(`HTTP ${res.status} without a JSON-RPC error: ${res.text.slice(0, 200)}`);
    // The SDK names the request's id when it could read one; a refusal before the body was read has none.
    if (body.id !== null && typeof body.id !== 'string' && typeof body.id !== 'number') out.push(`transport error with id ${JSON.stringify(body.id)}`);
    // 404: a path under the endpoint (`/api/mcp/x`) is an unknown route, answered in JSON-RPC form.
    if (![400, 401, 403, 404, 405, 406, 413, 415].includes(res.status)) out.push(`undocumented tool endpoint status ${res.status}`);
    if (res.status === 401 && !String(res.headers['www-authenticate']).startsWith('Bearer realm="svc"')) out.push('401 without WWW-Authenticate');
    if (res.status === 405 && res.headers.allow !== 'POST') out.push('405 without Allow: POST');
  }
  return out;
}

/**
 * A tools/call answer (HTTP 200): a JSON-RPC error (-32602 unknown tool / invalid params), or a result whose content
 * is one text item; an `isError` result's text is `{"error":{code,message,…}}` with a documented code.
 * Returns the problems and whether the call was refused.
 */
export function toolCallProblems(res: RawResponse, id: unknown): { problems: string[]; refused: boolean } {
  const problems: string[] = [];
  // Transport-level refusals of the body itself (nested too deeply, over 1 MiB) come before any tool.
  if (res.status === 400 || res.status === 413) return { problems: rpcEnvelopeProblems(res), refused: true };
  if (res.status !== 200) return { problems: [`tools/call answered HTTP ${res.status}: ${res.text.slice(0, 300)}`, ...rpcEnvelopeProblems(res)], refused: true };
  const body = res.json;
  if (!isObject(body) || body.jsonrpc !== '2.0') return { problems: [`not a JSON-RPC answer: ${res.text.slice(0, 200)}`], refused: true };
  if (JSON.stringify(body.id) !== JSON.stringify(id)) problems.push(`answer id ${JSON.stringify(body.id)} for request id ${JSON.stringify(id)}`);
  if (isObject(body.error)) {
    if (body.error.code !== -32602 && body.error.code !== -32600) problems.push(`unexpected JSON-RPC error ${JSON.stringify(body.error).slice(0, 300)}`);
    return { problems, refused: true };
  }
  const result = body.result;
  if (!isObject(result) || !Array.isArray(result.content) || result.content.length !== 1) return { problems: [...problems, `malformed result ${res.text.slice(0, 300)}`], refused: false };
  const item = result.content[0] as Record<string, unknown>;
  if (item.type !== 'text' || typeof item.text !== 'string') return { problems: [...problems, `result content is not text: ${res.text.slice(0, 200)}`], refused: false };
  const text = item.text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problems: [...problems, `result text is not JSON: ${text.slice(0, 200)}`], refused: result.isError === true };
  }
  if (result.isError === true) {
    if (!isObject(parsed) || Object.keys(parsed).length !== 1) problems.push(`isError text is not {"error":…}: ${text.slice(0, 300)}`);
    else problems.push(...errorObjectProblems(parsed.error, TOOL_ERROR_CODES).map((p) => `${p} — ${text.slice(0, 300)}`));
    return { problems, refused: true };
  }
  if (result.isError !== undefined && result.isError !== false) problems.push(`isError is ${JSON.stringify(result.isError)}`);
  return { problems, refused: false };
}
