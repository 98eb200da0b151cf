// `npm run test:conformance`: the official MCP conformance suite (server mode) against our tool endpoint, with the
// failures that cannot apply to this server baselined in conformance/expected-failures.yml (see conformance/README.md).
// Extra arguments are passed to the suite (e.g. `-- --scenario tools-list --verbose`). Exit code: the suite's.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// CONFORMANCE_BIN may name the suite's CLI elsewhere (e.g. an offline copy).
const suiteBin = process.env.CONFORMANCE_BIN ?? join(root, 'node_modules', '.bin', 'conformance');
const baseline = join(root, 'conformance', 'expected-failures.yml');

if (!existsSync(suiteBin)) {
  process.stderr.write('test:conformance: @modelcontextprotocol/conformance is not installed (npm install --save-dev @modelcontextprotocol/conformance@0.1.16)\n');
  process.exit(2);
}
const built = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { loadConfig } = await load('src/config/config.js');
const { openDatabase, startService } = await load('src/bootstrap.js');
const { createLogger } = await load('src/shared/logging/logger.js');
const { AgentService, IdentityAdminService } = await load('src/modules/identity/index.js');

const dataDir = process.env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'svc-conformance-'));
const config = loadConfig({ PORT: '0', LOG_LEVEL: 'warn', ...(dataDir ? { DATA_DIR: dataDir } : { DATABASE_URL: process.env.DATABASE_URL }) });
const logger = createLogger('warn', process.stderr);
const database = await openDatabase(config, logger);
const service = await startService(config, logger, { database });

async function seedKey() {
  const admin = service.app.get(IdentityAdminService);
  const company = await admin.createCompany('Conformance');
  const user = await admin.createUser({ companyUuid: company.uuid, email: `conformance-${company.uuid}@example.test`, name: 'Conformance', password: 'conformance-password' });
  const agents = service.app.get(AgentService);
  const scope = { companyUuid: company.uuid, userUuid: user.uuid };
  const agent = await agents.create(scope, user.uuid, { name: 'Conformance agent', preset: 'admin_agent' });
  return (await agents.createKey(scope, agent.uuid, { name: 'conformance' })).key;
}

/** Forwards everything to the service, adding the agent key: the suite's server mode cannot send headers. */
function keyProxy(target, key) {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: req.headers.authorization ?? `Bearer ${key}` };
    const upstream = http.request(new URL(req.url, target), { method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

let code = 1;
const proxy = await keyProxy(service.url, await seedKey());
try {
  const url = `http://127.0.0.1:${proxy.address().port}/api/mcp`;
  process.stderr.write(`test:conformance: suite against ${url} (service ${service.url}, agent key injected)\n`);
  const suite = spawn(suiteBin, ['server', '--url', url, '--expected-failures', baseline, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  code = await new Promise((r) => suite.on('exit', (c) => r(c ?? 1)));
} finally {
  proxy.closeAllConnections();
  proxy.close();
  await service.stop();
  await database.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
