/**
 * `npm run bench:catalogue` — the size of the tool catalogue in cl100k tokens per agent preset (docs/tool-conventions.md §1.5), from
 * the real `tools/list` answer of an agent of each preset: `counted` (each tool's name, title, description and
 * inputSchema as one JSON list — what the budget covers) and `whole` (the whole JSON-RPC answer, annotations and
 * output schemas included). Prints a table, then one JSON line with every figure (BENCHMARKS.md "Tool catalogue size").
 *
 * Env: DATABASE_URL (a scratch database on that server, dropped afterwards; else an embedded PostgreSQL).
 */
import { pino } from 'pino';
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/bootstrap.js';
import { AgentService, IdentityAdminService } from '../src/modules/identity/index.js';
import { catalogueSize, TOKEN_BUDGETS, type BudgetedPreset, type CatalogueSize } from './lib/catalogue-tokens.js';
import { scratchDatabase } from './lib/scratch-db.js';

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const scratch = await scratchDatabase(logger, 'catalogue');
  const svc = await startService(loadConfig({ PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: scratch.url }), logger, { database: scratch.db });
  const sizes: Partial<Record<BudgetedPreset, CatalogueSize & { budget: number }>> = {};
  try {
    const admin = svc.app.get(IdentityAdminService);
    const company = await admin.createCompany('Catalogue');
    const user = await admin.createUser({ companyUuid: company.uuid, email: `catalogue-${company.uuid}@example.test`, name: 'Catalogue', password: 'catalogue-password' });
    const agents = svc.app.get(AgentService);
    const scope = { companyUuid: company.uuid, userUuid: user.uuid };
    for (const preset of Object.keys(TOKEN_BUDGETS) as BudgetedPreset[]) {
      const agent = await agents.create(scope, user.uuid, { name: `Catalogue ${preset}`, preset });
      const { key } = await agents.createKey(scope, agent.uuid, { name: 'catalogue' });
      const res = await fetch(`${svc.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      if (res.status !== 200) throw new Error(`tools/list for ${preset} answered ${res.status}`);
      sizes[preset] = { ...catalogueSize(await res.text()), budget: TOKEN_BUDGETS[preset] };
    }
  } finally {
    await svc.stop();
    await scratch.cleanup();
  }
  console.log('preset            tools  counted  budget  whole answer   (cl100k tokens)');
  for (const [preset, s] of Object.entries(sizes)) {
    console.log(`${preset.padEnd(16)} ${String(s.tools).padStart(6)} ${String(s.counted).padStart(8)} ${String(s.budget).padStart(7)} ${String(s.whole).padStart(13)}`);
  }
  console.log(JSON.stringify(sizes));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
