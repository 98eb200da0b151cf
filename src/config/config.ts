import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** Typed, validated configuration. The only place that reads `process.env`. */
export class AppConfig {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  /** One NATS URL, or several comma-separated (seed servers of a cluster). */
  natsUrl: string | null;
  busSubjectPrefix: string;
  /** A company's or recipient's NATS subscription outlives its last stream or wait by this much (docs/deploy.md). */
  busInterestLingerMs: number;
  logLevel: LogLevel;
  /** `json`: one JSON object per line; `pretty`: human lines; `auto`: pretty when stdout is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  cookieSecure: boolean;
  corsOrigins: string[];
  sseHeartbeatMs: number;
  /** Base of the per-stream `retry:` (each stream gets a value between it and twice it). */
  sseRetryMs: number;
  /** Open streams per user per instance. */
  sseMaxStreamsPerUser: number;
  /** A stream (or a subscriber set of the fan-out) this far behind gets `reset` instead of a longer queue. */
  sseLagMs: number;
  /** Minimum age and minimum count of frames kept per key in the resume log (both hold). */
  streamLogRetentionMs: number;
  streamLogRetentionCount: number;
  /** Statement timeout (server side) and query timeout (client side) of every pooled connection; also the pool-acquire timeout. */
  dbStatementTimeoutMs: number;
  /** Deadline of a REST or tool-endpoint request (not the streams). */
  requestTimeoutMs: number;
  publicUrl: string | null;
  /** Origin of PUBLIC_URL, when set. */
  publicOrigin: string | null;
  /**
   * OAuth: fetch client ID metadata documents from loopback and private addresses too (the provider's SSRF guard is
   * dropped; TLS trust from the system store plus NODE_EXTRA_CA_CERTS). For MCP hosts on a private network only.
   */
  oauthPrivateClientMetadata: boolean;
  /**
   * Addresses and CIDRs of the reverse proxies whose `X-Forwarded-For` is believed (docs/deploy.md, "Client
   * address"), each normalised (`10.0.0.0/8`, `127.0.0.1`); empty: the header is ignored.
   */
  trustProxy: string[];
  /** Tool endpoint requests per API key (or OAuth grant) and instance: a burst of this many, then this many a minute (@nestjs/throttler); 0 = off. */
  mcpRateLimitPerMinute: number;
  nodeEnv: string;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function value(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function integer(env: Env, name: string, def: number, min: number, max: number): number {
  const v = value(env, name);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ConfigError(name, `must be an integer between ${min} and ${max} (got "${v}")`);
  }
  return Number(v);
}

function bool(env: Env, name: string, def: boolean): boolean {
  const v = value(env, name);
  if (v === undefined) return def;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new ConfigError(name, `must be "true" or "false" (got "${v}")`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const v = value(env, name);
  if (v === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `must be a URL (${protocols.join(', ')})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')} (got "${parsed.protocol}")`);
  }
  return v;
}

/** One URL, or several separated by commas (the seed servers of a cluster); kept as the normalised list text. */
function urlList(env: Env, name: string, protocols: string[]): string | null {
  const v = value(env, name);
  if (v === undefined) return null;
  const parts = v.split(',').map((s) => s.trim());
  if (parts.some((s) => s === '')) throw new ConfigError(name, 'must be a URL or a comma-separated list of URLs (empty entry)');
  return parts.map((part) => url({ [name]: part }, name, protocols)!).join(',');
}

function origin(name: string, v: string): string {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    return u.origin;
  } catch {
    throw new ConfigError(name, `must list http(s) origins (got "${v}")`);
  }
}

/** One TRUST_PROXY entry: an IPv4 or IPv6 address, or a CIDR of either (`10.0.0.0/8`, `fd00::/8`). */
function proxyEntry(v: string): string {
  const slash = v.indexOf('/');
  const address = slash < 0 ? v : v.slice(0, slash);
  const family = isIP(address);
  const bits = family === 4 ? 32 : 128;
  const prefix = slash < 0 ? null : v.slice(slash + 1);
  if (family === 0 || (prefix !== null && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits))) {
    throw new ConfigError('TRUST_PROXY', `must list IP addresses or CIDRs, comma-separated (got "${v}")`);
  }
  return prefix === null ? address : `${address}/${Number(prefix)}`;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `<duration>,<count>` (duration `500ms`, `30s`, `10m`, `1h`): minimum age and minimum count kept. */
function retention(env: Env, name: string): [number, number] {
  const v = value(env, name) ?? '10m,10000';
  const m = /^(\d{1,9})(ms|s|m|h)\s*,\s*(\d{1,9})$/.exec(v);
  const ms = m ? Number(m[1]) * DURATION_UNITS[m[2]] : NaN;
  if (!m || ms < 1000 || ms > 7 * 24 * 3_600_000 || Number(m[3]) < 1) {
    throw new ConfigError(name, `must be "<duration>,<count>" with a duration of 1s to 7 days (ms, s, m, h) and a count of at least 1 (got "${v}")`);
  }
  return [ms, Number(m[3])];
}

export function loadConfig(env: Env = process.env): AppConfig {
  const config = new AppConfig();
  const nodeEnv = value(env, 'NODE_ENV') ?? 'development';
  config.nodeEnv = nodeEnv;
  config.port = integer(env, 'PORT', 3000, 0, 65535);
  config.host = value(env, 'HOST') ?? '127.0.0.1';
  config.databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  config.dataDir = resolve(value(env, 'DATA_DIR') ?? './.data');
  config.natsUrl = urlList(env, 'NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']);
  const prefix = value(env, 'BUS_SUBJECT_PREFIX') ?? 'svc';
  if (!/^[A-Za-z0-9_-]+$/.test(prefix)) {
    throw new ConfigError('BUS_SUBJECT_PREFIX', `must be one subject token of letters, digits, "_" or "-" (got "${prefix}")`);
  }
  config.busSubjectPrefix = prefix;
  config.busInterestLingerMs = integer(env, 'BUS_INTEREST_LINGER_MS', 60_000, 0, 3_600_000);
  const level = (value(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
  }
  config.logLevel = level;
  const format = value(env, 'LOG_FORMAT') ?? 'auto';
  if (format !== 'auto' && format !== 'json' && format !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be one of auto, json, pretty (got "${format}")`);
  config.logFormat = format;
  config.cookieSecure = bool(env, 'COOKIE_SECURE', nodeEnv === 'production');
  config.corsOrigins = (value(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => origin('CORS_ORIGINS', s));
  config.sseHeartbeatMs = integer(env, 'SSE_HEARTBEAT_MS', 30000, 10, 3_600_000);
  config.sseRetryMs = integer(env, 'SSE_RETRY_MS', 3000, 100, 600_000);
  config.sseMaxStreamsPerUser = integer(env, 'SSE_MAX_STREAMS_PER_USER', 64, 1, 100_000);
  config.sseLagMs = integer(env, 'SSE_LAG_MS', 30000, 100, 3_600_000);
  [config.streamLogRetentionMs, config.streamLogRetentionCount] = retention(env, 'STREAM_LOG_RETENTION');
  config.dbStatementTimeoutMs = integer(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000);
  config.requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 8000, 100, 3_600_000);
  config.publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  config.publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : null;
  config.oauthPrivateClientMetadata = bool(env, 'OAUTH_PRIVATE_CLIENT_METADATA', false);
  config.trustProxy = (value(env, 'TRUST_PROXY') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(proxyEntry);
  config.mcpRateLimitPerMinute = integer(env, 'MCP_RATE_LIMIT_PER_MINUTE', 1200, 0, 1_000_000);
  return config;
}
