import type { Application } from 'express';
import { matchRoutesFirst } from './route-table.js';

/** A router layer as Express 5 keeps it: a middleware (no route) or a route with its path. */
const mw = (name: string) => ({ name, match: () => true });
const route = (path: string) => ({ name: path, route: { path, methods: { post: true } }, match: (p: string) => p === path || (path.includes(':') && p.startsWith(path.split(':')[0])) });
const appOf = (stack: object[]) => ({ router: { stack } }) as unknown as Application;
const names = (app: Application) => (app as unknown as { router: { stack: Array<{ name: string }> } }).router.stack.map((l) => l.name);

describe('matchRoutesFirst', () => {
  it('moves the routes of a path right after the last middleware before them', () => {
    const app = appOf([mw('headers'), route('/api/docs'), mw('log'), mw('json'), route('/api/a'), route('/api/b'), route('/api/mcp'), route('/api/mcp'), route('/api/c'), mw('404')]);
    expect(matchRoutesFirst(app, '/api/mcp')).toBe(true);
    expect(names(app)).toEqual(['headers', '/api/docs', 'log', 'json', '/api/mcp', '/api/mcp', '/api/a', '/api/b', '/api/c', '404']);
  });

  it('moves nothing when a route in between matches the path too, or the path has no route', () => {
    const shadowed = appOf([mw('log'), route('/api/:any'), route('/api/mcp')]);
    expect(matchRoutesFirst(shadowed, '/api/mcp')).toBe(false);
    expect(names(shadowed)).toEqual(['log', '/api/:any', '/api/mcp']);
    const none = appOf([mw('log'), route('/api/a')]);
    expect(matchRoutesFirst(none, '/api/mcp')).toBe(false);
    expect(names(none)).toEqual(['log', '/api/a']);
  });
});
