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
