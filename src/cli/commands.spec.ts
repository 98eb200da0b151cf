import { UsageError } from './cli-command.js';
import { parseCommand, usage } from './commands.js';

function usageError(argv: string[]): string {
  try {
    parseCommand(argv);
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('CLI argument parsing', () => {
  it('picks the longest matching command path', () => {
    expect(parseCommand(['agent', 'key', 'create', '--agent', 'a']).command.path).toEqual(['agent', 'key', 'create']);
    expect(parseCommand(['agent', 'create', '--company', 'c', '--owner', 'o', '--name', 'n', '--preset', 'p']).command.path).toEqual(['agent', 'create']);
    expect(parseCommand(['demo', 'seed']).command.path).toEqual(['demo', 'seed']);
  });

  it('collects repeated --permission options in order', () => {
    const { values } = parseCommand(['agent', 'permissions', '--agent', 'a', '--permission', 'task:admin', '--permission', 'none']);
    expect(values).toEqual({ agent: 'a', permission: ['task:admin', 'none'] });
  });

  it('reports unknown commands, missing and unknown options, and stray words as usage errors', () => {
    expect(usageError([])).toBe('No command given');
    expect(usageError(['agent', 'frob', '--x'])).toBe('Unknown command: agent frob');
    expect(usageError(['company', 'create'])).toBe('Missing option --name for "company create"');
    expect(usageError(['user', 'create', '--company', 'c'])).toBe('Missing options --email, --name, --password for "user create"');
    expect(usageError(['company', 'create', '--name', 'x', '--colour', 'red'])).toMatch(/Unknown option '--colour'/);
    expect(usageError(['company', 'create', '--name'])).toMatch(/--name/);
    expect(usageError(['demo', 'seed', 'now'])).toMatch(/positional/i);
  });

  it('takes the tool name of mcp call as a positional, before or after the options, and repeated --header options', () => {
    const a = parseCommand(['mcp', 'call', 'svc_get_task', '--url', 'http://x', '--key', 'k', '--header', 'A=1', '--header', 'B=2']);
    expect(a.command.path).toEqual(['mcp', 'call']);
    expect(a.values).toEqual({ tool: 'svc_get_task', url: 'http://x', key: 'k', header: ['A=1', 'B=2'] });
    expect(parseCommand(['mcp', 'call', '--url', 'http://x', '--key', 'k', 'svc_get_task']).values.tool).toBe('svc_get_task');
    expect(usageError(['mcp', 'call', '--url', 'http://x', '--key', 'k'])).toBe('Missing <tool> for "mcp call"');
    expect(usageError(['mcp', 'call', 'a', 'b', '--url', 'http://x', '--key', 'k'])).toBe(`Unexpected argument 'b' for "mcp call"`);
    expect(usageError(['mcp', 'tools', 'extra', '--url', 'http://x', '--key', 'k'])).toMatch(/positional/i);
    expect(parseCommand(['mcp', 'tools', '--url', 'http://x', '--key', 'k']).command).toMatchObject({ database: false });
  });

  it('lists every command of docs/platform.md §10 in the usage text', () => {
    for (const line of [
      'company create --name <n>',
      'user create --company <uuid> --email <e> --name <n> --password <p>',
      'agent create --company <uuid> --owner <userUuid> --name <n> --preset <p> [--permission x:y ...]',
      'agent key create --agent <uuid> [--name <n>] [--expires <iso>]',
      'agent key revoke --key <keyUuid>',
      'agent permissions --agent <uuid>',
      'agent grants <agentUuid>',
      'agent revoke-grant <grantId>',
      'demo seed',
      'migration run',
      'migration revert',
      'mcp tools --url <base> --key <agk> [--header Name=Value ...]',
      "mcp call <tool> --url <base> --key <agk> [--header Name=Value ...] [--args '<json>']",
    ]) {
      expect(usage()).toContain(line);
    }
  });
});
