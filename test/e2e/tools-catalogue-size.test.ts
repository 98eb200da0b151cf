import { catalogueSize, TOKEN_BUDGETS, type CatalogueSize } from '../../bench/lib/catalogue-tokens.js';
import { rpc } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';

/**
 * docs/tool-conventions.md §1.5: what hosts hand the model — each listed tool's name, title, description and inputSchema as JSON,
 * counted with the cl100k tokenizer over the whole list — stays within each preset's budget. Measured on the real
 * `tools/list` answer of an agent of each preset (`npm run bench:catalogue` prints the same figures).
 */
describe('tool catalogue token budget (docs/tool-conventions.md §1.5, e2e)', () => {
  let app: World;
  const sizes = new Map<string, CatalogueSize>();

  beforeAll(async () => {
    app = await World.start();
    const c = await app.company('Budget');
    const owner = await app.user(c.uuid, { name: 'Owner' });
    for (const preset of Object.keys(TOKEN_BUDGETS)) {
      const { key } = await app.ids.agent(c.uuid, owner.uuid, { preset });
      const res = await rpc(app.url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { authorization: `Bearer ${key}` });
      expect(res.status).toBe(200);
      sizes.set(preset, catalogueSize(res.text));
    }
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each(Object.entries(TOKEN_BUDGETS))('%s: the counted part of its tools/list fits in %i cl100k tokens', (preset, budget) => {
    const size = sizes.get(preset)!;
    expect(size.tools).toBeGreaterThan(0);
    expect({ preset, ...size, withinBudget: size.counted <= budget }).toEqual({ preset, ...size, withinBudget: true });
  });

  it('counts what the budget says: a larger catalogue costs more', () => {
    const dev = sizes.get('developer_agent')!;
    const admin = sizes.get('admin_agent')!;
    expect(admin.counted).toBeGreaterThan(dev.counted);
    expect(admin.whole).toBeGreaterThan(admin.counted);
  });
});
