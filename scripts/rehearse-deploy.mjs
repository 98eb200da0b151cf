// Driver of scripts/rehearse-deploy.sh (docs/deploy.md, "Rehearsal"): starts the two service instances, then drives
// the deployment from outside through nginx only (a mutation also goes straight to one instance, to prove the
// cross-instance path). Every check that fails sets the exit code; the summary is printed as one JSON object and
// written to $REHEARSE_TMP/summary.json. Node >= 20, no dependencies.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const TMP = process.env.REHEARSE_TMP;
const PROXY = new URL(process.env.REHEARSE_PROXY);
const PORTS = process.env.REHEARSE_PORTS.split(',').map(Number);
const PASSWORD = process.env.REHEARSE_PASSWORD;
const STREAMS = Number(process.env.REHEARSE_STREAMS ?? 1000);
const IDLE_MS = Number(process.env.REHEARSE_IDLE_MS ?? 125_000);
// The rolling restart takes each instance out of nginx (server marked `down`, reload) before its SIGTERM and back
// after it is ready, as docs/deploy.md prescribes. REHEARSE_PROXY_DRAIN=0 skips that (SIGTERM while nginx still
// sends to it; the restarted instance gets traffic back after fail_timeout), to measure what that costs.
const PROXY_DRAIN = process.env.REHEARSE_PROXY_DRAIN !== '0';
const REST_RATE = 20;
const MCP_RATE = 20;
// nginx takes an instance that refused connections out of the rotation for fail_timeout (docs/nginx.conf): a rolling
// restart waits that long after an instance is ready again before stopping the next one (docs/deploy.md).
const FAIL_TIMEOUT_MS = 1000 * Number(readFileSync(`${TMP}/svc.conf`, 'utf8').match(/fail_timeout=(\d+)s/)[1]) + 1000;

// Client addresses (all of 127.0.0.0/8 reaches the loopback interface on Linux): nginx connects to the instances from
// 127.0.0.1; the driver's own requests leave from DRIVER, so an instance that logs 127.0.0.1 as a client address would
// be logging nginx's. LB stands for a load balancer in front of nginx, trusted like it: the abuse checks speak from it
// and name the client in X-Forwarded-For, which is how they act as many client addresses. STRANGER is a client that
// is not trusted: its X-Forwarded-For must be ignored.
const NGINX_ADDRESS = '127.0.0.1';
const DRIVER = '127.0.0.5';
const LB = '127.0.0.2';
const STRANGER = '127.0.0.3';

// The instances' configuration: docs/deploy.md's multi-instance values. SSE_HEARTBEAT_MS is the default (30 s) so the
// idle stream proves the proxy's read timeout with the documented value; SSE_MAX_STREAMS_PER_USER is raised because
// the 1,000 streams all belong to one user (after the kill they all sit on one instance).
const INSTANCE_ENV = {
  DATABASE_URL: process.env.REHEARSE_DATABASE_URL,
  NATS_URL: process.env.REHEARSE_NATS,
  PUBLIC_URL: PROXY.origin,
  COOKIE_SECURE: 'false',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  NODE_ENV: 'production',
  BUS_SUBJECT_PREFIX: 'svc',
  SSE_HEARTBEAT_MS: '30000',
  MCP_RATE_LIMIT_PER_MINUTE: '1200',
  SSE_MAX_STREAMS_PER_USER: '2000',
  TRUST_PROXY: `${NGINX_ADDRESS},${LB}`,
};

const t0 = Date.now();
const log = (msg) => console.log(`[rehearse +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const failures = [];
function check(ok, what) {
  if (ok) log(`ok   ${what}`);
  else {
    log(`FAIL ${what}`);
    failures.push(what);
  }
  return ok;
}
const sum = (xs, k) => xs.reduce((n, x) => n + x[k], 0);
const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] * 10) / 10;
};

// ---------------------------------------------------------------- nginx: taking an instance out and back
// The same three substitutions as scripts/rehearse-deploy.sh, plus, for the instance being restarted, its server line
// marked `down` (docs/deploy.md, "Graceful shutdown"); then a graceful reload (SIGHUP to the master).
function nginxUpstreams(down = -1) {
  let conf = readFileSync('docs/nginx.conf', 'utf8')
    .replace('server svc1:3000 ', `server 127.0.0.1:${PORTS[0]} `)
    .replace('server svc2:3000 ', `server 127.0.0.1:${PORTS[1]} `)
    .replace(/^(\s*)listen 80;/m, `$1listen 127.0.0.1:${PROXY.port};`);
  if (down >= 0) conf = conf.replace(new RegExp(`(server 127\\.0\\.0\\.1:${PORTS[down]} [^;]*);`), '$1 down;');
  writeFileSync(`${TMP}/svc.conf`, conf);
  process.kill(Number(readFileSync(`${TMP}/nginx.pid`, 'utf8')), 'SIGHUP');
}

// ---------------------------------------------------------------- instances
const instances = [null, null];
function startInstance(i) {
  const out = openSync(`${TMP}/svc${i + 1}.log`, 'a');
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, ...INSTANCE_ENV, PORT: String(PORTS[i]) },
    stdio: ['ignore', out, out],
  });
  writeFileSync(`${TMP}/svc${i + 1}.pid`, String(child.pid));
  const inst = { child, exit: new Promise((r) => child.once('exit', (code, signal) => r({ code, signal }))) };
  void inst.exit.then(() => rmSync(`${TMP}/svc${i + 1}.pid`, { force: true }));
  instances[i] = inst;
  return inst;
}
async function waitReady(i, timeoutMs = 60_000) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const r = await request({ port: PORTS[i], path: '/health/ready' }).catch(() => null);
    if (r?.status === 200) return Date.now() - start;
    if (instances[i].child.exitCode !== null) throw new Error(`svc${i + 1} exited during start-up`);
    await sleep(200);
  }
  throw new Error(`svc${i + 1} not ready within ${timeoutMs} ms`);
}
function killAll() {
  for (const inst of instances) if (inst && inst.child.exitCode === null && inst.child.signalCode === null) inst.child.kill('SIGKILL');
}
process.on('exit', killAll);

// ---------------------------------------------------------------- HTTP
// Pooled keep-alive connections to nginx, as browsers and HTTP client libraries keep them. A pooled connection that the
// peer closed while it was idle — nginx's old workers close theirs on a reload — fails the next request sent on it
// before any byte of an answer; like a browser (and as Node's documentation of `request.reusedSocket` shows), the
// client then sends the request again on a new connection, once. Those resends are counted (`staleResends`) and
// reported; any other error or a second failure is a failed request.
const agents = new Map();
// The resend goes on a new connection: a reload closes all idle pooled connections at once, so the next pooled one
// may be closed too.
function agentFor(from, fresh) {
  const key = `${from} ${fresh}`;
  if (!agents.has(key)) agents.set(key, new http.Agent(fresh ? { keepAlive: false, localAddress: from } : { keepAlive: true, maxSockets: 256, localAddress: from }));
  return agents.get(key);
}
let staleResends = 0;
function request(opts, resent = false) {
  const { port = Number(PROXY.port), method = 'GET', path, headers = {}, body, timeoutMs = 30_000, from = DRIVER } = opts;
  const agent = agentFor(from, false);
  const freshAgent = agentFor(from, true);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    let answered = false;
    const req = http.request(
      { host: '127.0.0.1', port, method, path, agent: resent ? freshAgent : agent, headers: { ...headers, ...(data ? { 'content-type': headers['content-type'] ?? 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8').on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text, ms: performance.now() - started, json: () => JSON.parse(text) }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      if (!answered && !resent && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
        staleResends++;
        request(opts, true).then((r) => resolve({ ...r, ms: performance.now() - started }), reject);
      } else reject(err);
    });
    req.end(data);
  });
}
async function metric(i, name) {
  const r = await request({ port: PORTS[i], path: '/metrics' });
  let sum = 0;
  for (const line of r.text.split('\n')) if (line.startsWith(name + ' ') || line.startsWith(name + '{')) sum += Number(line.split(' ').pop());
  return sum;
}

/** `<epoch>-<n>` → [epoch, n] (the epoch is an opaque token). */
const position = (id) => [id.slice(0, id.lastIndexOf('-')), Number(id.slice(id.lastIndexOf('-') + 1))];

// ---------------------------------------------------------------- SSE client (EventSource semantics)
const sseAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity, localAddress: DRIVER });
class Stream {
  constructor(name, cookie, path = '/api/events') {
    Object.assign(this, { name, cookie, path });
    this.lastId = null;
    this.ids = [];
    this.entities = new Set();
    this.heartbeats = [];
    this.resets = 0;
    this.connects = 0;
    this.connectedAt = 0;
    this.disconnectedAt = 0;
    this.reconnectMs = [];
    /** Reconnect time beyond the `retry:` delay the stream asked for: what the proxy and the new instance add. */
    this.overMs = [];
    this.retryMs = 3000;
    this.closed = false;
    this.open = false;
    this.ends = 0;
    this.badStatus = [];
  }
  start() {
    this.connectedOnce = new Promise((r) => (this.onFirstConnect = r));
    this.connect();
    return this;
  }
  connect() {
    if (this.closed) return;
    const headers = { cookie: this.cookie, accept: 'text/event-stream' };
    if (this.lastId !== null) headers['last-event-id'] = this.lastId;
    const requestedAt = Date.now();
    const req = http.get({ host: '127.0.0.1', port: Number(PROXY.port), path: this.path, headers, agent: sseAgent }, (res) => {
      if (res.statusCode !== 200) {
        this.badStatus.push(res.statusCode);
        res.resume();
        return this.lost();
      }
      this.req = req;
      let buf = '';
      let ev = {};
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buf += chunk;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (ev.id !== undefined) this.lastId = ev.id;
            if (ev.event === 'reset') this.resets++;
            else if (ev.data !== undefined) {
              this.ids.push(ev.id);
              try {
                const d = JSON.parse(ev.data);
                if (d.entityUuid) this.entities.add(d.entityUuid);
              } catch {
                /* not JSON: counted by id only */
              }
            }
            ev = {};
          } else if (line.startsWith(':')) {
            const c = line.slice(1).trim();
            if (c === 'connected') {
              this.connects++;
              this.open = true;
              this.connectedAt = Date.now();
              this.firstByteMs = Date.now() - requestedAt;
              if (this.disconnectedAt) {
                this.reconnectMs.push(this.connectedAt - this.disconnectedAt);
                this.overMs.push(this.connectedAt - this.disconnectedAt - this.waitedMs);
              }
              this.onFirstConnect();
            } else if (c === 'heartbeat') this.heartbeats.push(Date.now());
          } else {
            const k = line.indexOf(':');
            const field = k < 0 ? line : line.slice(0, k);
            const value = k < 0 ? '' : line.slice(k + 1).replace(/^ /, '');
            if (field === 'data') ev.data = ev.data === undefined ? value : ev.data + '\n' + value;
            else if (field === 'id') ev.id = value;
            else if (field === 'event') ev.event = value;
            else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
          }
        }
      });
      res.on('end', () => this.lost());
      res.on('error', () => this.lost());
      res.on('aborted', () => this.lost());
    });
    req.on('error', () => this.lost());
    this.req = req;
  }
  lost() {
    if (this.closed || this.reconnecting) return;
    this.reconnecting = true;
    if (this.open) {
      this.ends++;
      this.disconnectedAt = Date.now();
      this.waitedMs = 0;
    }
    this.waitedMs += this.retryMs;
    this.open = false;
    setTimeout(() => {
      this.reconnecting = false;
      this.connect();
    }, this.retryMs);
  }
  close() {
    this.closed = true;
    this.req?.destroy();
  }
  /** Positions must increase strictly (no duplicate, in order); with no filter they are also consecutive. */
  order() {
    let dup = 0;
    let gaps = 0;
    for (let k = 1; k < this.ids.length; k++) {
      const [ea, na] = position(this.ids[k - 1]);
      const [eb, nb] = position(this.ids[k]);
      if (ea !== eb || nb <= na) dup++;
      else if (nb !== na + 1) gaps++;
    }
    return { dup, gaps };
  }
}

// ---------------------------------------------------------------- accounts, load
async function login(email) {
  const r = await request({ method: 'POST', path: '/api/auth/login', headers: { origin: PROXY.origin }, body: { email, password: PASSWORD } });
  const cookie = (r.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith('svc_session='));
  return { status: r.status, cookie };
}
let mcpId = 0;
function mcp(key, method, params) {
  return request({
    method: 'POST',
    path: '/api/mcp',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: ++mcpId, method, params },
  });
}
function mcpOk(r) {
  if (r.status !== 200) return false;
  try {
    const j = r.json();
    return !j.error && j.result && !j.result.isError;
  } catch {
    return false;
  }
}
const findKey = (o) => JSON.stringify(o).match(/"(agk_[^"]+)"/)?.[1];

function writer(cookie, project, created, label) {
  // One idea created every 200 ms through nginx; returns a stop function.
  let n = 0;
  const errors = [];
  const timer = setInterval(() => {
    const k = ++n;
    request({ method: 'POST', path: `/api/projects/${project}/ideas`, headers: { cookie, origin: PROXY.origin }, body: { title: `${label} ${k}` } })
      .then((r) => (r.status === 201 ? created.push(r.json().data.uuid) : errors.push(r.status)))
      .catch((e) => errors.push(e.message));
  }, 200);
  return async () => {
    clearInterval(timer);
    await sleep(1500);
    return errors;
  };
}

function loadGenerator(cookie, project, keys, created) {
  const res = { rest: { sent: 0, ok: 0, fail: [], ms: [], at: [] }, mcp: { sent: 0, ok: 0, fail: [], ms: [], at: [] } };
  const pending = new Set();
  const track = (p) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  let i = 0;
  let j = 0;
  const restTimer = setInterval(() => {
    const k = i++;
    res.rest.sent++;
    const restAt = Date.now();
    const r =
      k % 4 === 3
        ? request({ method: 'POST', path: `/api/projects/${project}/ideas`, headers: { cookie, origin: PROXY.origin }, body: { title: `load ${k}` } })
        : request({ path: k % 2 ? '/api/auth/me' : '/api/projects?limit=5', headers: { cookie } });
    track(
      r.then(
        (x) => {
          if (x.status < 400) {
            res.rest.ok++;
            res.rest.ms.push(x.ms);
            res.rest.at.push(restAt);
            if (k % 4 === 3) created.push(x.json().data.uuid);
          } else res.rest.fail.push(`${x.status} ${x.text.slice(0, 120)}`);
        },
        (e) => res.rest.fail.push(e.message),
      ),
    );
  }, 1000 / REST_RATE);
  const mcpTimer = setInterval(() => {
    const k = j++;
    res.mcp.sent++;
    const mcpAt = Date.now();
    const key = keys[k % keys.length];
    const r = k % 2 ? mcp(key, 'tools/call', { name: 'svc_checkin', arguments: {} }) : mcp(key, 'tools/list', {});
    track(
      r.then(
        (x) => {
          if (mcpOk(x)) {
            res.mcp.ok++;
            res.mcp.ms.push(x.ms);
            res.mcp.at.push(mcpAt);
          } else res.mcp.fail.push(`${x.status} ${x.text.slice(0, 160)}`);
        },
        (e) => res.mcp.fail.push(e.message),
      ),
    );
  }, 1000 / MCP_RATE);
  return async () => {
    clearInterval(restTimer);
    clearInterval(mcpTimer);
    await Promise.allSettled([...pending]);
    return res;
  };
}

async function waitAll(pred, timeoutMs) {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (pred()) return Date.now() - start;
    await sleep(250);
  }
  return null;
}

// ---------------------------------------------------------------- abuse limits (docs/deploy.md, "Abuse limits")
// The service's access-log lines (`msg: "request"`) of instance i, from its log file.
function requestLines(i) {
  return readFileSync(`${TMP}/svc${i + 1}.log`, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const o = JSON.parse(line);
        return o.msg === 'request' ? [o] : [];
      } catch {
        return [];
      }
    });
}
/** Per instance, how many of its access-log lines of `route` name `address` as the client (after the last answer's
 * line is out: an instance writes it when the response has finished). */
const served = (route, address) => [0, 1].map((i) => requestLines(i).filter((l) => l.route === route && l.clientAddress === address).length);
/** A sample of a labelled metric, summed over both instances. */
async function metricSum(sample) {
  let total = 0;
  for (const i of [0, 1]) {
    const r = await request({ port: PORTS[i], path: '/metrics' });
    const line = r.text.split('\n').find((l) => l.startsWith(`${sample} `));
    total += line ? Number(line.split(' ').pop()) : 0;
  }
  return total;
}
const perInstance = async (sample) =>
  Promise.all([0, 1].map(async (i) => Number((await request({ port: PORTS[i], path: '/metrics' })).text.split('\n').find((l) => l.startsWith(`${sample} `))?.split(' ').pop() ?? 0)));

/** A login through nginx from local address `from`, naming `client` in X-Forwarded-For when given. */
function loginFrom(from, client, email, password) {
  return request({ method: 'POST', path: '/api/auth/login', from, headers: { origin: PROXY.origin, ...(client ? { 'x-forwarded-for': client } : {}) }, body: { email, password } });
}
const rateLimited = (r) => {
  if (r.status !== 429) return false;
  const e = r.json().error;
  return e?.code === 'RATE_LIMITED' && e?.message === 'Too many login attempts' && Number(r.headers['retry-after']) > 0;
};
const statuses = (rs) => [...new Set(rs.map((r) => r.status))].join(',');

async function abuseChecks() {
  const LOGIN = '/api/auth/login';
  const C = 'c@rehearse.test';
  const D = 'd@rehearse.test';
  // Pair: ten wrong passwords for one email from one client address, spread over both instances by nginx.
  const pairFails = [];
  for (let k = 0; k < 10; k++) pairFails.push(await loginFrom(LB, '198.51.100.10', C, `wrong ${k}`));
  const pairLocked = await loginFrom(LB, '198.51.100.10', C, PASSWORD);
  await sleep(500);
  const pairSpread = served(LOGIN, '198.51.100.10');
  check(pairFails.every((r) => r.status === 401) && rateLimited(pairLocked) && pairSpread.every((n) => n > 0), `abuse: 10 wrong passwords for one email from one client address (svc1 ${pairSpread[0]}, svc2 ${pairSpread[1]} logged the 11 logins) lock that pair: the right password then answers ${pairLocked.status} RATE_LIMITED, Retry-After ${pairLocked.headers['retry-after']} (the 10: ${statuses(pairFails)})`);
  const elsewhere = await loginFrom(LB, '198.51.100.11', C, PASSWORD);
  check(elsewhere.status === 200, `abuse: the same email from another client address still signs in: ${elsewhere.status} (the per-email limit is not reached)`);

  // Address: a hundred failures from one client address, over a hundred emails.
  const sprayFails = [];
  for (let k = 0; k < 100; k++) sprayFails.push(await loginFrom(LB, '198.51.100.20', `spray-${k}@rehearse.test`, 'wrong'));
  const addressLocked = await loginFrom(LB, '198.51.100.20', C, PASSWORD);
  await sleep(500);
  const addressSpread = served(LOGIN, '198.51.100.20');
  check(sprayFails.every((r) => r.status === 401) && rateLimited(addressLocked) && addressSpread.every((n) => n > 0), `abuse: 100 failures from one client address over 100 emails (svc1 ${addressSpread[0]}, svc2 ${addressSpread[1]}) lock that address: a right password from it answers ${addressLocked.status} (the 100: ${statuses(sprayFails)})`);

  // Email: the owner signs in from home; a spray from five other addresses (ten each) locks the email for every
  // address but home.
  const home = await loginFrom(LB, '198.51.100.30', D, PASSWORD);
  const emailFails = [];
  for (let a = 1; a <= 5; a++) for (let k = 0; k < 10; k++) emailFails.push(await loginFrom(LB, `198.51.100.3${a}`, D, `wrong ${k}`));
  const emailLocked = await loginFrom(LB, '198.51.100.36', D, PASSWORD);
  const owner = await loginFrom(LB, '198.51.100.30', D, PASSWORD);
  check(home.status === 200 && emailFails.every((r) => r.status === 401) && rateLimited(emailLocked), `abuse: 50 failures for one email from 5 client addresses lock the email: a new address answers ${emailLocked.status} (the 50: ${statuses(emailFails)})`);
  check(owner.status === 200, `abuse: the owner's address that signed in before the spray is exempt from the per-email limit: ${owner.status}`);

  // X-Forwarded-For from a client that is not a trusted proxy is ignored: all its failures count for its own address.
  const strangerFails = [];
  for (let k = 0; k < 10; k++) strangerFails.push(await loginFrom(STRANGER, `198.51.100.4${k}`, C, `wrong ${k}`));
  const strangerLocked = await loginFrom(STRANGER, '198.51.100.11', C, PASSWORD);
  await sleep(500);
  const strangerLines = served(LOGIN, STRANGER);
  const claimed = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((k) => served(LOGIN, `198.51.100.4${k}`)).reduce((a, b) => a + b, 0);
  check(
    strangerFails.every((r) => r.status === 401) && rateLimited(strangerLocked) && strangerLines[0] + strangerLines[1] === 11 && claimed === 0,
    `abuse: X-Forwarded-For from an untrusted socket (${STRANGER}) is ignored: its 10 failures claiming 10 addresses lock its own pair (${strangerLocked.status} for an address that is free through the trusted proxy); logged as ${STRANGER} ${strangerLines[0] + strangerLines[1]} times, as a claimed address ${claimed} times`,
  );
  const rules = {};
  for (const rule of ['pair', 'address', 'email']) rules[rule] = await metricSum(`svc_login_throttled_total{rule="${rule}"}`);
  check(rules.pair >= 2 && rules.address >= 1 && rules.email >= 1, `abuse: svc_login_throttled_total by rule over both instances: ${JSON.stringify(rules)}`);

  // Registration: 20 per client address per hour across both instances.
  const reg = (client) =>
    request({ method: 'POST', path: '/oauth/reg', from: LB, headers: { 'x-forwarded-for': client }, body: { client_name: `rehearsal host ${client}`, redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] } });
  const registered = [];
  for (let k = 0; k < 20; k++) registered.push(await reg('198.51.100.50'));
  const refused = [];
  for (let k = 0; k < 4; k++) refused.push(await reg('198.51.100.50'));
  const refusedBy = await perInstance('svc_oauth_registrations_refused_total');
  await sleep(500);
  const regSpread = served('/oauth/reg', '198.51.100.50');
  const body = refused[0].status === 429 ? refused[0].json() : {};
  check(
    registered.every((r) => r.status === 201) && refused.every((r) => r.status === 429 && Number(r.headers['retry-after']) > 3000) && body.error === 'too_many_requests' && refusedBy.every((n) => n >= 1),
    `abuse: 20 registrations from one client address (svc1 ${regSpread[0]}, svc2 ${regSpread[1]} logged the 24) pass (${statuses(registered)}), the next ones answer ${statuses(refused)} with Retry-After ${refused[0].headers['retry-after']} and ${JSON.stringify(body)}, refused by both instances (svc_oauth_registrations_refused_total ${refusedBy.join('/')})`,
  );
  const otherAddress = await reg('198.51.100.51');
  check(otherAddress.status === 201, `abuse: another client address still registers: ${otherAddress.status}`);

  // What the instances logged as client addresses: the driver's and the ones the trusted proxies named, never nginx's.
  const all = [0, 1].map((i) => requestLines(i));
  const nginxLogged = all.map((lines) => lines.filter((l) => l.clientAddress === NGINX_ADDRESS).length);
  const driverLogged = all.map((lines) => lines.filter((l) => l.clientAddress === DRIVER).length);
  check(
    nginxLogged.every((n) => n === 0) && driverLogged.every((n) => n > 0),
    `client address: the instances logged the driver's ${DRIVER} (svc1 ${driverLogged[0]}, svc2 ${driverLogged[1]} requests) and nginx's ${NGINX_ADDRESS} never (${nginxLogged.join('/')}) in ${all[0].length + all[1].length} access-log lines`,
  );
  summary.abuse = { pairSpread, addressSpread, regSpread, throttled: rules, refusedBy, driverLogged };
}

// ---------------------------------------------------------------- the rehearsal
const summary = { streams: STREAMS, proxyDrain: PROXY_DRAIN, env: INSTANCE_ENV };
async function main() {
  log(`starting svc1 on ${PORTS[0]} and svc2 on ${PORTS[1]}`);
  startInstance(0);
  startInstance(1);
  const [r1, r2] = await Promise.all([waitReady(0), waitReady(1)]);
  log(`ready: svc1 ${r1} ms, svc2 ${r2} ms`);
  const ready = await request({ path: '/health/ready' });
  check(ready.status === 200 && ready.json().checks?.bus === 'up', `GET /health/ready through nginx: 200, bus up (${ready.text})`);
  const metrics = await request({ path: '/metrics' });
  check(metrics.status === 404, `GET /metrics through nginx: 404 (got ${metrics.status})`);

  // Login through nginx
  const a = await login('a@rehearse.test');
  const b = await login('b@rehearse.test');
  check(a.status === 200 && a.cookie && b.status === 200 && b.cookie, `POST /api/auth/login through nginx: 200 with svc_session (${a.status}, ${b.status})`);
  if (!a.cookie || !b.cookie) throw new Error('no session');
  const me = await request({ path: '/api/auth/me', headers: { cookie: a.cookie } });
  check(me.status === 200 && me.text.includes('a@rehearse.test'), `GET /api/auth/me through nginx: 200 (${me.text.slice(0, 80)})`);

  // The idle stream (company B: nothing happens there): heartbeats only, for IDLE_MS.
  const idle = new Stream('idle', b.cookie).start();
  await idle.connectedOnce;
  check(idle.firstByteMs < 2000, `idle stream: ": connected" through nginx after ${idle.firstByteMs} ms (unbuffered)`);

  // Agents and the tool endpoint through nginx
  const keys = [];
  const ag = await request({ method: 'POST', path: '/api/agents', headers: { cookie: a.cookie, origin: PROXY.origin }, body: { name: 'rehearsal agent', preset: 'developer_agent' } });
  check(ag.status === 201, `POST /api/agents through nginx: 201 (${ag.status})`);
  const agentUuid = ag.json().data?.uuid ?? ag.json().data?.agent?.uuid;
  const firstKey = findKey(ag.json());
  if (firstKey) keys.push(firstKey);
  while (keys.length < 4) {
    const k = await request({ method: 'POST', path: `/api/agents/${agentUuid}/keys`, headers: { cookie: a.cookie, origin: PROXY.origin }, body: { name: `key ${keys.length}` } });
    const key = findKey(k.json());
    if (!check(k.status === 201 && key, `POST /api/agents/:uuid/keys through nginx: 201 with agk_… (${k.status})`)) break;
    keys.push(key);
  }
  const list = await mcp(keys[0], 'tools/list', {});
  const tools = list.status === 200 ? (list.json().result?.tools ?? []) : [];
  check(tools.length > 0 && tools.some((t) => t.name === 'svc_checkin'), `MCP tools/list through nginx: ${list.status}, ${tools.length} tools, svc_checkin listed`);
  const call = await mcp(keys[0], 'tools/call', { name: 'svc_checkin', arguments: {} });
  check(mcpOk(call), `MCP tools/call svc_checkin through nginx: ${call.status} ${call.text.slice(0, 100)}`);
  summary.tools = tools.length;

  // Cross-instance: two streams through nginx (round robin puts them on different instances), then a change made on
  // svc2 directly and one on svc1 directly: every stream must receive both, so at least one crossed NATS.
  const pair = [new Stream('x1', a.cookie).start(), new Stream('x2', a.cookie).start()];
  await Promise.all(pair.map((s) => s.connectedOnce));
  const placement = [await metric(0, 'svc_sse_connections'), await metric(1, 'svc_sse_connections')];
  log(`open streams per instance (svc_sse_connections, idle stream included): svc1 ${placement[0]}, svc2 ${placement[1]}`);
  const pr = await request({ method: 'POST', path: '/api/projects', headers: { cookie: a.cookie, origin: PROXY.origin }, body: { name: 'Rehearsal' } });
  check(pr.status === 201, `POST /api/projects through nginx: 201 (${pr.status})`);
  const project = pr.json().data.uuid;
  const direct = [];
  for (const i of [1, 0]) {
    const r = await request({ port: PORTS[i], method: 'POST', path: `/api/projects/${project}/ideas`, headers: { cookie: a.cookie, origin: PROXY.origin }, body: { title: `direct on svc${i + 1}` } });
    check(r.status === 201, `POST /api/projects/:uuid/ideas directly on svc${i + 1}: 201 (${r.status})`);
    direct.push(r.json().data.uuid);
  }
  const crossMs = await waitAll(() => pair.every((s) => direct.every((u) => s.entities.has(u))), 5000);
  check(crossMs !== null, `both nginx streams received the changes made on svc2 and on svc1 (within ${crossMs} ms; streams per instance ${placement.join('/')})`);
  summary.cross = { placement, ms: crossMs };
  pair.forEach((s) => s.close());

  // 1,000 streams through nginx
  const streams = [];
  for (let k = 0; k < STREAMS; k += 50) {
    const batch = [];
    for (let m = k; m < Math.min(STREAMS, k + 50); m++) batch.push(new Stream(`s${m}`, a.cookie).start());
    streams.push(...batch);
    await Promise.race([Promise.all(batch.map((s) => s.connectedOnce)), sleep(10_000)]);
  }
  const openMs = await waitAll(() => streams.every((s) => s.open), 20_000);
  const spread = [await metric(0, 'svc_sse_connections'), await metric(1, 'svc_sse_connections')];
  check(openMs !== null, `${STREAMS} streams open through nginx (svc1 ${spread[0]}, svc2 ${spread[1]} incl. the idle one)`);

  // Abuse limits and the client address, while the idle stream waits (nothing else runs then).
  await abuseChecks();

  // The idle stream: heartbeats through nginx, no cut, for IDLE_MS.
  const idleLeft = IDLE_MS - (Date.now() - idle.connectedAt);
  if (idleLeft > 0) {
    log(`waiting ${Math.round(idleLeft / 1000)} s for the idle stream to reach ${IDLE_MS / 1000} s`);
    await sleep(idleLeft);
  }
  const beats = [idle.connectedAt, ...idle.heartbeats];
  const gaps = beats.slice(1).map((t, k) => t - beats[k]);
  const maxGap = Math.max(...gaps);
  const idleFor = Date.now() - idle.connectedAt;
  check(idle.open && idle.ends === 0 && idle.connects === 1, `idle stream open for ${Math.round(idleFor / 1000)} s through nginx with no cut (ends ${idle.ends}, connects ${idle.connects})`);
  check(idle.heartbeats.length >= Math.floor(idleFor / 30_000) - 1 && maxGap < 35_000, `idle stream: ${idle.heartbeats.length} heartbeats, gaps ${gaps.map((g) => (g / 1000).toFixed(1)).join(', ')} s (max ${(maxGap / 1000).toFixed(1)} s, SSE_HEARTBEAT_MS 30000)`);
  summary.idle = { seconds: Math.round(idleFor / 1000), heartbeats: idle.heartbeats.length, maxGapMs: maxGap, firstByteMs: idle.firstByteMs };
  idle.close();

  // Kill: SIGKILL svc1 while the streams are open and a writer changes things through nginx.
  const killCreated = [];
  const stopWriter = writer(a.cookie, project, killCreated, 'kill');
  await sleep(2000);
  const onSvc1 = await metric(0, 'svc_sse_connections');
  log(`SIGKILL svc1 (${onSvc1} streams on it)`);
  const killAt = Date.now();
  instances[0].child.kill('SIGKILL');
  await instances[0].exit;
  await sleep(10_000);
  const writerErrors = await stopWriter();
  const reconnected = await waitAll(() => streams.every((s) => s.open && s.connects >= 1), 20_000);
  const cut = streams.filter((s) => s.disconnectedAt >= killAt);
  for (const s of cut) s.cutAtKill = true;
  const rms = cut.flatMap((s) => s.reconnectMs.slice(-1));
  const oms = cut.flatMap((s) => s.overMs.slice(-1));
  check(reconnected !== null && cut.length > 0, `kill: ${cut.length} streams cut, all reconnected through nginx to svc2 (reconnect p50 ${pct(rms, 50)} ms, max ${pct(rms, 100)} ms, of which beyond the retry: delay p50 ${pct(oms, 50)} ms, max ${pct(oms, 100)} ms)`);
  await sleep(1500);
  const lostKill = streams.filter((s) => !killCreated.every((u) => s.entities.has(u)));
  const orderKill = streams.map((s) => s.order());
  check(killCreated.length > 0 && lostKill.length === 0, `kill: every stream received all ${killCreated.length} changes written around the kill (streams missing one: ${lostKill.length})`);
  check(orderKill.every((o) => o.dup === 0 && o.gaps === 0) && streams.every((s) => s.resets === 0), `kill: no duplicate, no gap in positions, no reset on any stream (out of order ${sum(orderKill, 'dup')}, gaps ${sum(orderKill, 'gaps')}, resets ${sum(streams, 'resets')})`);
  log(`kill: writes refused by the dying instance (not counted: SIGKILL loses in-flight requests): ${writerErrors.length} ${writerErrors.slice(0, 3).join('; ')}`);
  summary.kill = { streamsOnKilled: onSvc1, cut: cut.length, reconnectP50Ms: pct(rms, 50), reconnectMaxMs: pct(rms, 100), beyondRetryP50Ms: pct(oms, 50), beyondRetryMaxMs: pct(oms, 100), writes: killCreated.length, writeErrors: writerErrors.length, badStatus: streams.flatMap((s) => s.badStatus).length };

  startInstance(0);
  log(`svc1 restarted: ready after ${await waitReady(0)} ms; waiting fail_timeout (${FAIL_TIMEOUT_MS / 1000} s) for nginx to take it back`);
  await sleep(FAIL_TIMEOUT_MS);

  // Rolling restart under load: SIGTERM svc1, start it, ready; then svc2.
  const loadCreated = [];
  const stopLoad = loadGenerator(a.cookie, project, keys, loadCreated);
  const loadStart = Date.now();
  await sleep(3000);
  const restarts = [];
  for (const i of [0, 1]) {
    if (PROXY_DRAIN) {
      log(`svc${i + 1} marked down in nginx (reload)`);
      nginxUpstreams(i);
      await sleep(2000);
    }
    const streamsOn = await metric(i, 'svc_sse_connections');
    log(`SIGTERM svc${i + 1} (${streamsOn} streams on it)`);
    const at = Date.now();
    instances[i].child.kill('SIGTERM');
    const ex = await instances[i].exit;
    const stopMs = Date.now() - at;
    check(ex.code === 0, `svc${i + 1} exited ${ex.code ?? ex.signal} after ${stopMs} ms (SIGTERM)`);
    startInstance(i);
    const readyMs = await waitReady(i);
    restarts.push({ instance: `svc${i + 1}`, streams: streamsOn, stopMs, readyMs, sigtermAt: at });
    if (PROXY_DRAIN) {
      log(`svc${i + 1} started again: ready after ${readyMs} ms; back in nginx (reload)`);
      nginxUpstreams(-1);
      await sleep(3000);
    } else {
      log(`svc${i + 1} started again: ready after ${readyMs} ms; waiting fail_timeout (${FAIL_TIMEOUT_MS / 1000} s) before the next step`);
      await sleep(FAIL_TIMEOUT_MS);
    }
  }
  await sleep(2000);
  const load = await stopLoad();
  const loadSeconds = (Date.now() - loadStart) / 1000;
  const settled = await waitAll(() => streams.every((s) => s.open && loadCreated.every((u) => s.entities.has(u))), 20_000);
  const lostRoll = streams.filter((s) => !loadCreated.every((u) => s.entities.has(u)));
  const orderRoll = streams.map((s) => s.order());
  log(`rolling restart: ${staleResends} requests sent again after a pooled connection to nginx was closed under them (nginx reload)`);
  for (const kind of ['rest', 'mcp']) {
    const x = load[kind];
    check(x.fail.length === 0 && x.sent === x.ok, `rolling restart: ${kind.toUpperCase()} ${x.sent} sent, ${x.ok} ok, ${x.fail.length} failed (p50 ${pct(x.ms, 50)} ms, p99 ${pct(x.ms, 99)} ms, max ${pct(x.ms, 100)} ms)${x.fail.length ? ': ' + [...new Set(x.fail)].slice(0, 5).join(' | ') : ''}`);
  }
  check(settled !== null && lostRoll.length === 0, `rolling restart: all ${streams.length} streams open and received all ${loadCreated.length} changes written (missing on ${lostRoll.length})`);
  check(orderRoll.every((o) => o.dup === 0 && o.gaps === 0) && streams.every((s) => s.resets === 0), `rolling restart: no duplicate, no gap in positions, no reset on any stream (out of order ${sum(orderRoll, 'dup')}, gaps ${sum(orderRoll, 'gaps')}, resets ${sum(streams, 'resets')})`);
  // Latency in the 10 s after the SIGTERM of the instance holding the streams (they all reconnect to the other one
  // and resume) and outside it.
  const busyFrom = restarts[restarts.length - 1].sigtermAt;
  const split = (x, inside) => x.ms.filter((_, k) => (x.at[k] >= busyFrom && x.at[k] < busyFrom + 10_000) === inside);
  const rrms = streams.flatMap((s) => s.reconnectMs.slice(s.cutAtKill ? 1 : 0));
  const roms = streams.flatMap((s) => s.overMs.slice(s.cutAtKill ? 1 : 0));
  summary.rolling = {
    seconds: Math.round(loadSeconds),
    restarts,
    rest: { sent: load.rest.sent, failed: load.rest.fail.length, p50: pct(load.rest.ms, 50), p99: pct(load.rest.ms, 99), max: pct(load.rest.ms, 100), p99Reconnect10s: pct(split(load.rest, true), 99), p99Otherwise: pct(split(load.rest, false), 99) },
    mcp: { sent: load.mcp.sent, failed: load.mcp.fail.length, p50: pct(load.mcp.ms, 50), p99: pct(load.mcp.ms, 99), max: pct(load.mcp.ms, 100), p99Reconnect10s: pct(split(load.mcp, true), 99), p99Otherwise: pct(split(load.mcp, false), 99) },
    staleResends,
    changes: loadCreated.length,
    streamReconnectP50Ms: pct(rrms, 50),
    streamReconnectMaxMs: pct(rrms, 100),
    streamBeyondRetryP50Ms: pct(roms, 50),
    streamBeyondRetryMaxMs: pct(roms, 100),
    frames: streams.reduce((n, s) => n + s.ids.length, 0),
  };
  streams.forEach((s) => s.close());

  for (const i of [0, 1]) {
    instances[i].child.kill('SIGTERM');
    const ex = await instances[i].exit;
    check(ex.code === 0, `svc${i + 1} stopped with exit 0 at the end (${ex.code ?? ex.signal})`);
  }
}

main()
  .catch((err) => {
    failures.push(`error: ${err.stack ?? err}`);
    log(`error: ${err.stack ?? err}`);
  })
  .finally(() => {
    summary.failures = failures;
    summary.seconds = Math.round((Date.now() - t0) / 1000);
    writeFileSync(`${TMP}/summary.json`, JSON.stringify(summary, null, 2));
    console.log(JSON.stringify(summary));
    killAll();
    process.exit(failures.length ? 1 : 0);
  });
