import type { Application } from 'express';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match?: (path: string) => boolean;
}

/**
 * The methods registered for a concrete path, read from the Express router; used to tell
 * "unknown route" (404) from "known path, unsupported method" (405).
 */
export class RouteTable {
  private layers: RouteLayer[] | null = null;

  constructor(private readonly app: () => Application) {}

  methodsFor(path: string): string[] {
    this.layers ??= (((this.app() as unknown as { router?: { stack: RouteLayer[] } }).router?.stack) ?? []).filter(
      (l) => l.route && typeof l.match === 'function',
    );
    const methods = new Set<string>();
    for (const layer of this.layers) {
      if (layer.match!(path)) {
        for (const [m, on] of Object.entries(layer.route!.methods)) if (on && m !== '_all') methods.add(m.toUpperCase());
      }
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

/**
 * Moves the route layers of `path` ahead of the other routes: right after the last middleware before them, so every
 * middleware that ran before them still does, and Express no longer tries every REST route's pattern on each request
 * to them — the tool endpoint's requests pass ~100 route layers otherwise (BENCHMARKS.md "MCP"). Nothing moves when
 * a route in between matches the path too (it would have answered first).
 */
export function matchRoutesFirst(app: Application, path: string): boolean {
  const stack = (app as unknown as { router?: { stack: RouteLayer[] } }).router?.stack;
  if (!stack) return false;
  const own = stack.filter((l) => l.route?.path === path);
  if (!own.length) return false;
  const first = stack.indexOf(own[0]);
  let after = first - 1;
  while (after >= 0 && stack[after].route) after--;
  const between = stack.slice(after + 1, first);
  if (between.some((l) => typeof l.match === 'function' && l.match(path))) return false;
  for (const l of own) stack.splice(stack.indexOf(l), 1);
  stack.splice(after + 1, 0, ...own);
  return true;
}
