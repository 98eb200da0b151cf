/**
 * A V8 CPU profile of this process on demand, over IPC (the same format as `node --cpu-prof`, but covering only the
 * window the parent asks for — one benchmark arm — not boot and the other arms):
 * `{profile: 'start'}` → `{profiling: true}`; `{profile: 'stop', file}` → writes the .cpuprofile → `{profiled: file}`.
 * Sampling interval: BENCH_PROFILE_INTERVAL_US (default 250 µs).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

export function installProfilerIpc(): void {
  let session: Session | null = null;
  const post = <T>(method: string, params?: object): Promise<T> =>
    new Promise((resolve, reject) => session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
  process.on('message', (msg: { profile?: 'start' | 'stop'; file?: string }) => {
    if (msg.profile === 'start') {
      session = new Session();
      session.connect();
      void post('Profiler.enable')
        .then(() => post('Profiler.setSamplingInterval', { interval: Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 250) }))
        .then(() => post('Profiler.start'))
        .then(() => process.send!({ profiling: true }));
    } else if (msg.profile === 'stop' && session) {
      void post<{ profile: unknown }>('Profiler.stop').then(({ profile }) => {
        writeFileSync(msg.file!, JSON.stringify(profile));
        session!.disconnect();
        session = null;
        process.send!({ profiled: msg.file });
      });
    }
  });
}
