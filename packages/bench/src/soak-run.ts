// `pnpm --filter @sluice/bench soak`: the "host survives" soak. The host under test is a child
// process (soak-host.ts), so that when a program takes the whole host down the soak can say so.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const host = spawn(process.execPath, ['--import', 'tsx', join('src', 'soak-host.ts'), ...process.argv.slice(2)], {
  cwd: join(import.meta.dirname, '..'),
  stdio: 'inherit',
});
host.on('exit', (code, signal) => {
  if (code === 0) {
    console.log('soak: passed, the host survived every run');
    process.exit(0);
  }
  if (code === 3) {
    console.log('soak: FAILED, the host survived but a check above failed');
  } else {
    console.log(
      `soak: FAILED, the host process died (${signal ?? `exit ${code}`}) before the soak finished; the last progress line above shows how far it got`,
    );
  }
  process.exit(1);
});
