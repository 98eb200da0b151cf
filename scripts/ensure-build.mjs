// Builds dist/ with `nest build` only when it is missing or older than a source file, so `npm run cli` and the
// migration scripts stay fast. Build output goes to stderr: stdout belongs to the command that runs next.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'dist', 'src', 'cli', 'main.js');
const SOURCES = ['src', 'migrations'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];

/** Newest mtime of the files the build reads (unit specs are not built, so they do not count). */
function newestSource() {
  let newest = 0;
  const visit = (path) => {
    const st = statSync(path);
    if (st.isDirectory()) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else if (!path.endsWith('.spec.ts')) {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const dir of SOURCES) if (existsSync(join(root, dir))) visit(join(root, dir));
  for (const file of CONFIGS) if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

function stale() {
  return !existsSync(target) || newestSource() > statSync(target).mtimeMs;
}

/** `nest build` empties dist/ first, so two builds of one tree must not overlap (parallel test files, two shells). */
function withLock(fn) {
  const lock = join(tmpdir(), `svc-build-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.lock`);
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock older than the deadline belongs to a build that died.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`ensure-build: timed out waiting for ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (stale()) {
  const status = withLock(() => {
    if (!stale()) return 0; // another process built it while we waited
    process.stderr.write('ensure-build: sources changed, running nest build…\n');
    const res = spawnSync('npx', ['nest', 'build'], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
    return res.status ?? 1;
  });
  if (status !== 0) {
    process.stderr.write(`ensure-build: nest build failed (exit ${status})\n`);
    process.exit(status);
  }
}
