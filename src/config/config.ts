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
  logLevel: LogLevel;
  cookieSecure: boolean;
  corsOrigins: string[];
  sseHeartbeatMs: number;
  publicUrl: string | null;
  /** Origin of PUBLIC_URL, when set. */
  publicOrigin: string | null;
  /** Tool endpoint requests per API key per minute, per instance (token bucket, burst of the same size); 0 = off. */
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
  const level = (value(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
  }
  config.logLevel = level;
  config.cookieSecure = bool(env, 'COOKIE_SECURE', nodeEnv === 'production');
  config.corsOrigins = (value(env, 'CORS_ORIGINS') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => origin('CORS_ORIGINS', s));
  config.sseHeartbeatMs = integer(env, 'SSE_HEARTBEAT_MS', 30000, 10, 3_600_000);
  config.publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  config.publicOrigin = config.publicUrl ? new URL(config.publicUrl).origin : null;
  config.mcpRateLimitPerMinute = integer(env, 'MCP_RATE_LIMIT_PER_MINUTE', 1200, 0, 1_000_000);
  return config;
}
