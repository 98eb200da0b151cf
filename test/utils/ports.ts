import { connect } from 'node:net';

/** True when something accepts TCP connections on 127.0.0.1:`port` right now. */
export function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
