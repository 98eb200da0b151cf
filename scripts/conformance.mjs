// `npm run test:conformance`: the official MCP conformance suite (server mode) against our tool endpoint, for both
// protocol eras the endpoint serves, one after the other against one started service:
//   2025-11-25  @modelcontextprotocol/conformance 0.1.16 (stable)  `--spec-version 2025-11-25`
//   2026-07-28  @modelcontextprotocol/conformance-next (npm alias of 0.2.0-alpha.12)  `--requirements 2026-07-28`
// Each era has its own baseline, conformance/expected-failures-<era>.yml (see conformance/README.md).
// Options: `--era <2025-11-25|2026-07-28>` runs one era only; every other argument is passed to the runner(s), e.g.
// `npm run test:conformance -- --era 2026-07-28 --scenario tools-list --verbose`.
// Exit code: 0 when every era that ran exits 0, else the first non-zero runner exit code (2 on a usage error).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// The two runners are installed side by side and called by their package paths (both packages name their bin
// `conformance`, so node_modules/.bin/conformance is whichever npm linked last).
const ERAS = {
  '2025-11-25': { pkg: '@modelcontextprotocol/conformance', version: '0.1.16', select: ['--spec-version', '2025-11-25'] },
  '2026-07-28': { pkg: '@modelcontextprotocol/conformance-next', version: '0.2.0-alpha.12', select: ['--requirements', '2026-07-28'] },
};
/** The alpha refuses `--requirements` with `--scenario`: one named scenario is selected by its spec version instead. */
const selection = (era) => (suiteArgs.some((a) => a === '--scenario' || a.startsWith('--scenario=')) ? ['--spec-version', era] : ERAS[era].select);

const args = process.argv.slice(2);
const eras = [];
const suiteArgs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--era' || args[i].startsWith('--era=')) {
    const era = args[i].includes('=') ? args[i].slice('--era='.length) : args[++i];
    if (!ERAS[era]) {
      process.stderr.write(`test:conformance: unknown --era ${era ?? ''} (one of ${Object.keys(ERAS).join(', ')})\n`);
      process.exit(2);
    }
    eras.push(era);
  } else suiteArgs.push(args[i]);
}
if (eras.length === 0) eras.push(...Object.keys(ERAS));

const suiteBin = (era) => join(root, 'node_modules', ...ERAS[era].pkg.split('/'), 'dist', 'index.js');
const baseline = (era) => join(root, 'conformance', `expected-failures-${era}.yml`);
for (const era of eras) {
  if (!existsSync(suiteBin(era))) {
    process.stderr.write(`test:conformance: ${ERAS[era].pkg} (${ERAS[era].version}) is not installed: npm install\n`);
    process.exit(2);
  }
}
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  process.stderr.write(`test:conformance: the runners need Node.js >= 22 (this is ${process.version}); see conformance/README.md\n`);
  process.exit(2);
}

const built = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { loadConfig } = await load('src/config/config.js');
const { startService } = await load('src/bootstrap.js');
const { openDatabase } = await load('src/database.js');
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

const codes = {};
const proxy = await keyProxy(service.url, await seedKey());
try {
  const url = `http://127.0.0.1:${proxy.address().port}/api/mcp`;
  for (const era of eras) {
    const { pkg, version } = ERAS[era];
    process.stderr.write(`\ntest:conformance: era ${era}: ${pkg} ${version} against ${url} (service ${service.url}, agent key injected)\n`);
    const argv = [suiteBin(era), 'server', '--url', url, ...selection(era), '--expected-failures', baseline(era), '--output-dir', join(root, 'results', `conformance-${era}`), ...suiteArgs];
    const suite = spawn(process.execPath, argv, { cwd: root, stdio: 'inherit' });
    codes[era] = await new Promise((r) => suite.on('exit', (c) => r(c ?? 1)));
  }
} finally {
  proxy.closeAllConnections();
  proxy.close();
  await service.stop();
  await database.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
process.stderr.write(`\ntest:conformance: ${eras.map((era) => `${era} ${codes[era] === 0 ? 'passed' : `FAILED (exit ${codes[era] ?? 'not run'})`}`).join(', ')}\n`);
process.exit(eras.map((era) => codes[era] ?? 1).find((c) => c !== 0) ?? 0);
