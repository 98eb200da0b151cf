import { TOOL_ORDER } from '../tool-kit/index.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';

describe('SERVER_INSTRUCTIONS (docs/platform.md §4)', () => {
  it('stays under 1,500 characters', () => {
    expect(SERVER_INSTRUCTIONS.length).toBeGreaterThan(0);
    expect(SERVER_INSTRUCTIONS.length).toBeLessThan(1500);
  });

  it('names only tools of the catalogue, starting with svc_checkin', () => {
    const named = SERVER_INSTRUCTIONS.match(/\bsvc_\w+/g) ?? [];
    expect(named[0]).toBe('svc_checkin');
    expect(named.filter((n) => !TOOL_ORDER.includes(n))).toEqual([]);
  });

  it('covers the flow, where to find work and the narrowing headers', () => {
    for (const part of ['svc_get_my_assignments', 'svc_pm_create_proposal', 'svc_get_available_tasks', 'svc_claim_task', 'X-MCP-Tools', 'X-MCP-Readonly', 'X-Service-Project']) {
      expect(SERVER_INSTRUCTIONS).toContain(part);
    }
  });
});
