#!/usr/bin/env node
// The repository explains itself (docs/architecture.md "Conventions"): comments and tests cite this repository's
// docs/, never specification files that live outside it. Run by `npm run lint`. Reports, in every tracked source
// file (src, test, scripts, bench, client, migrations, conformance, the lint configs):
//   - a bare `platform.md`, `domain.md`, `notifications.md` or `tools.md` (the catalogue is `docs/tools.md`, the
//     conventions `docs/tool-conventions.md`) not preceded by `docs/`;
//   - `service-spec.md`, `ARCHITECTURE.md` and paths into `../shared/spec` or `../shared/research`;
//   - a `docs/<name>.md` that does not exist.
//
//   node scripts/check-doc-citations.mjs      violations (exit 1 if any)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const roots = ['src', 'test', 'scripts', 'bench', 'client', 'migrations', 'conformance', '.dependency-cruiser.cjs', 'eslint.config.js'];
const files = execFileSync('git', ['ls-files', '--', ...roots], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|mts|js|mjs|cjs|sql|html)$/.test(f))
  // This file names the patterns it reports (its header above), so it would report itself.
  .filter((f) => f !== 'scripts/check-doc-citations.mjs');

const bare = /(?<![\w/.-])(platform|domain|notifications|tools)\.md\b/g;
const outside = /service-spec\.md|ARCHITECTURE\.md|\.\.\/shared\/(spec|research)/g;
const cited = /(?<![\w.-])docs\/([\w-]+\.md)/g;
const problems = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    for (const m of line.matchAll(bare)) problems.push(`${at}: "${m[0]}" is outside the repository; cite docs/…`);
    for (const m of line.matchAll(outside)) problems.push(`${at}: "${m[0]}" is outside the repository; cite docs/…`);
    for (const m of line.matchAll(cited)) if (!existsSync(`docs/${m[1]}`)) problems.push(`${at}: docs/${m[1]} does not exist`);
  });
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} citation(s) of files outside the repository (scripts/check-doc-citations.mjs)`);
  process.exit(1);
}
console.log(`doc citations: ${files.length} files, all cite docs/ in the repository`);
