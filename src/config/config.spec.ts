import { resolve } from 'node:path';
import { ConfigError, loadConfig } from './config.js';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the defaults of docs/platform.md §1 to an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: null,
      dataDir: resolve('./.data'),
      natsUrl: null,
      busSubjectPrefix: 'svc',
      logLevel: 'info',
      cookieSecure: false,
      corsOrigins: [],
      sseHeartbeatMs: 30000,
      publicUrl: null,
      publicOrigin: null,
      nodeEnv: 'development',
      mcpRateLimitPerMinute: 1200,
      oauthPrivateClientMetadata: false,
      trustProxy: [],
    });
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ PORT: '  ', LOG_LEVEL: '', DATABASE_URL: ' ' })).toMatchObject({ port: 3000, logLevel: 'info', databaseUrl: null });
  });

  it('makes the cookie Secure by default only in production, and lets COOKIE_SECURE override it', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).cookieSecure).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', COOKIE_SECURE: 'false' }).cookieSecure).toBe(false);
    expect(loadConfig({ COOKIE_SECURE: 'true' }).cookieSecure).toBe(true);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/svc',
      DATA_DIR: '/var/lib/svc',
      NATS_URL: 'nats://nats:4222',
      BUS_SUBJECT_PREFIX: 'svc_prod-1',
      LOG_LEVEL: 'debug',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173/',
      SSE_HEARTBEAT_MS: '50',
      PUBLIC_URL: 'https://svc.example.com/base/path',
      MCP_RATE_LIMIT_PER_MINUTE: '60',
      SSE_RETRY_MS: '1500',
      SSE_MAX_STREAMS_PER_USER: '8',
      STREAM_LOG_RETENTION: '30m, 50000',
      DB_STATEMENT_TIMEOUT_MS: '2500',
      REQUEST_TIMEOUT_MS: '4000',
      OAUTH_PRIVATE_CLIENT_METADATA: 'true',
      TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8 ,2001:db8::1',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgres://u:p@db:5432/svc',
      dataDir: '/var/lib/svc',
      natsUrl: 'nats://nats:4222',
      busSubjectPrefix: 'svc_prod-1',
      logLevel: 'debug',
      // Listed origins are normalised to bare origins (no trailing slash or path).
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
      sseHeartbeatMs: 50,
      publicUrl: 'https://svc.example.com/base/path',
      publicOrigin: 'https://svc.example.com',
      mcpRateLimitPerMinute: 60,
      sseRetryMs: 1500,
      sseMaxStreamsPerUser: 8,
      streamLogRetentionMs: 30 * 60_000,
      streamLogRetentionCount: 50_000,
      dbStatementTimeoutMs: 2500,
      requestTimeoutMs: 4000,
      oauthPrivateClientMetadata: true,
      trustProxy: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '2001:db8::1'],
    });
    expect(loadConfig({})).toMatchObject({ dbStatementTimeoutMs: 5000, requestTimeoutMs: 8000 });
    expect(loadConfig({})).toMatchObject({ sseRetryMs: 3000, sseMaxStreamsPerUser: 64, streamLogRetentionMs: 600_000, streamLogRetentionCount: 10_000 });
    expect(loadConfig({ STREAM_LOG_RETENTION: '90s,1' })).toMatchObject({ streamLogRetentionMs: 90_000, streamLogRetentionCount: 1 });
    expect(loadConfig({ MCP_RATE_LIMIT_PER_MINUTE: '0' }).mcpRateLimitPerMinute).toBe(0);
    expect(loadConfig({ NATS_URL: 'nats://n1:4222, nats://n2:4222,tls://n3:4222' }).natsUrl).toBe('nats://n1:4222,nats://n2:4222,tls://n3:4222');
    expect(loadConfig({ DATABASE_URL: 'postgresql://h/db' }).databaseUrl).toBe('postgresql://h/db');
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '65536'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://h/db'],
    ['NATS_URL', 'http://nats:4222'],
    ['NATS_URL', '::::'],
    ['NATS_URL', 'nats://n1:4222,,nats://n2:4222'],
    ['NATS_URL', 'nats://n1:4222,http://n2:4222'],
    ['BUS_SUBJECT_PREFIX', 'svc.events'],
    ['BUS_SUBJECT_PREFIX', 'a b'],
    ['LOG_LEVEL', 'verbose'],
    ['LOG_LEVEL', 'INFO'],
    ['COOKIE_SECURE', 'yes'],
    ['COOKIE_SECURE', '1'],
    ['OAUTH_PRIVATE_CLIENT_METADATA', 'yes'],
    ['CORS_ORIGINS', 'https://ok.example.com,not-an-origin'],
    ['CORS_ORIGINS', 'ftp://files.example.com'],
    ['SSE_HEARTBEAT_MS', 'fast'],
    ['SSE_HEARTBEAT_MS', '5'],
    ['SSE_HEARTBEAT_MS', '3600001'],
    ['PUBLIC_URL', 'svc.example.com'],
    ['PUBLIC_URL', 'ftp://svc.example.com'],
    ['MCP_RATE_LIMIT_PER_MINUTE', '-1'],
    ['MCP_RATE_LIMIT_PER_MINUTE', '20/s'],
    ['MCP_RATE_LIMIT_PER_MINUTE', '1000001'],
    ['SSE_RETRY_MS', '50'],
    ['SSE_MAX_STREAMS_PER_USER', '0'],
    ['STREAM_LOG_RETENTION', '10m'],
    ['STREAM_LOG_RETENTION', '10000'],
    ['STREAM_LOG_RETENTION', '10 minutes,10000'],
    ['STREAM_LOG_RETENTION', '500ms,10'],
    ['STREAM_LOG_RETENTION', '10m,0'],
    ['DB_STATEMENT_TIMEOUT_MS', '0'],
    ['DB_STATEMENT_TIMEOUT_MS', '5s'],
    ['REQUEST_TIMEOUT_MS', '50'],
    ['TRUST_PROXY', 'nginx'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.0/'],
    ['TRUST_PROXY', 'fd00::/129'],
    ['TRUST_PROXY', '127.0.0.1,300.1.1.1'],
    ['TRUST_PROXY', '10.0.0.1:8080'],
  ])('rejects %s=%j with a ConfigError naming the variable', (variable, value) => {
    const err = configError({ [variable]: value });
    expect(err.variable).toBe(variable);
    expect(err.message).toContain(variable);
    expect(err.message).toMatch(/^Invalid configuration: /);
  });
});
