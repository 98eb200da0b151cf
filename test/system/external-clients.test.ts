/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../utils/browser.js';
import { userActor, World } from '../utils/world.js';

/**
 * Programs of their own against the service, each a child process: the MCP Inspector CLI (docs/platform.md §4) and a
 * headless Chromium rendering the Swagger UI under the service's Content-Security-Policy (docs/deploy.md). The
 * in-process clients of both MCP eras are in test/e2e/mcp-clients.test.ts, the headers in
 * test/e2e/http.test.ts ("security headers").
 */
const run = promisify(execFile);
const INSPECTOR = join(process.cwd(), 'node_modules', '.bin', 'mcp-inspector');

describe('programs of their own against the service', () => {
  let app: World;
  let key: string;
  let projectUuid: string;

  beforeAll(async () => {
    app = await World.start();
    const c = await app.company();
    const u = await app.user(c.uuid);
    key = (await app.agent(c.uuid, u.uuid, { preset: 'developer_agent' })).key;
    projectUuid = await app.project(userActor(u), { name: 'Clients project' });
  }, 120_000);
  afterAll(() => app?.close());

  it('the MCP Inspector CLI lists the tools and calls a read tool, exit code 0', async () => {
    const common = ['--cli', `${app.url}/api/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`];
    const list = await run(INSPECTOR, [...common, '--method', 'tools/list'], { timeout: 60_000 });
    expect(JSON.parse(list.stdout).tools.map((t: { name: string }) => t.name)).toContain('svc_get_project');
    const call = await run(INSPECTOR, [...common, '--method', 'tools/call', '--tool-name', 'svc_get_project', '--tool-arg', `projectUuid=${projectUuid}`], { timeout: 60_000 });
    const result = JSON.parse(call.stdout) as { content: Array<{ text: string }>; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content[0].text)).toMatchObject({ uuid: projectUuid });
    // A failing call exits non-zero: a bad key.
    await expect(run(INSPECTOR, ['--cli', `${app.url}/api/mcp`, '--transport', 'http', '--header', 'Authorization: Bearer agk_nope', '--method', 'tools/list'], { timeout: 60_000 })).rejects.toMatchObject({ code: expect.any(Number) });
  }, 180_000);

  it('let the Swagger UI at /api/docs render in a browser without a CSP violation', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => {
          (window as unknown as { cspViolations: string[] }).cspViolations ??= [];
          (window as unknown as { cspViolations: string[] }).cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
        });
      });
      const res = await page.goto(`${app.url}/api/docs`);
      expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      // The title comes from /api/docs.json, rendered by the UI's scripts: everything loaded and ran.
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('svc');
      await page.waitForSelector('.opblock-tag', { timeout: 10_000 });
      const fromPage = await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
      expect([...violations, ...fromPage]).toEqual([]);
    } finally {
      await browser?.close();
    }
  }, 60_000);
});
