// Runs before `npm run test:system`: makes sure the programs the system suites drive are present. Debian's Chromium
// (browser-client, oauth-browser, external-clients, the failover test) is installed with apt when missing and we are
// root. `npm test` drives no browser and needs nothing from here.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  if (typeof process.getuid === 'function' && process.getuid() === 0 && existsSync('/usr/bin/apt-get')) {
    console.error(`pretest: ${chromium} is missing; installing Debian's chromium (apt)`);
    const res = spawnSync('bash', ['scripts/ci-system-deps.sh'], { stdio: 'inherit' });
    if (res.status !== 0) process.exit(res.status ?? 1);
  } else {
    console.error(`pretest: ${chromium} is missing; install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
    process.exit(1);
  }
}
