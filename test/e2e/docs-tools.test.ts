import { readFileSync, writeFileSync } from 'node:fs';
import { ToolRegistry } from '../../src/modules/tool-kit/index.js';
import { renderToolCatalogue } from '../utils/tool-catalogue-doc.js';
import { World } from '../utils/world.js';

/**
 * docs/tools.md is the catalogue the code lists (test/utils/tool-catalogue-doc.ts). A tool added, renamed, re-described
 * or given another schema without `npm run docs:tools` fails here (and so in CI).
 */
const FILE = new URL('../../docs/tools.md', import.meta.url);

describe('docs/tools.md', () => {
  let app: World;
  beforeAll(async () => {
    app = await World.start();
  });
  afterAll(() => app.close());

  it('is the catalogue the registry lists', () => {
    const rendered = renderToolCatalogue(app.get(ToolRegistry));
    if (process.env.UPDATE_DOCS === '1') writeFileSync(FILE, rendered);
    expect(readFileSync(FILE, 'utf8')).toBe(rendered);
  });
});
