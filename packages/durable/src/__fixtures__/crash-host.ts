// A host process for the crash tests: opens the run store named on the command line, starts a
// durable run with the given id, and kills itself with SIGKILL inside the call named by `crashIn`
// (`read`, or `send-<to>`), after appending the call to the effects file (what a side effect leaves).
import { appendFileSync } from 'node:fs';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import type { Tool } from '@sluice/permissions';
import { createPGliteRunStore, createPostgresRunStore } from '@sluice/run-store';
import { createDurableRuns } from '../index.js';
import { crashProgram } from './crash-program.js';

const [storeKind, where, runId, crashIn, effects] = process.argv.slice(2);
if (storeKind === undefined || where === undefined || runId === undefined || crashIn === undefined || effects === undefined) {
  throw new Error('usage: crash-host.ts pglite|postgres DATA_DIR|URL RUN_ID TOOL EFFECTS_FILE');
}
const store =
  storeKind === 'pglite' ? createPGliteRunStore({ dataDir: where }) : createPostgresRunStore({ connectionString: where });
const tool = (name: string, replay?: 'safe'): Tool => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  ...(replay === undefined ? {} : { replay }),
  execute: (input) => {
    appendFileSync(effects, `${name} ${JSON.stringify(input)}\n`);
    const call = name === 'send' ? `send-${(input as { to?: string }).to}` : name;
    if (call === crashIn) process.kill(process.pid, 'SIGKILL');
    return { from: 'first host', name };
  },
});
const runs = createDurableRuns({
  runtime: createQuickJsCodeRuntime({ poolSize: 1 }),
  store,
  tools: [tool('read', 'safe'), tool('send')],
  policy: { default: 'allow', rules: [] },
  // Short, so the second host need not wait long for it to lapse; not shorter, or on a loaded machine
  // this host loses it by its own clock (a slow renewal) and stops before the crash.
  leaseMs: 2000,
});
await runs.start({ runId, program: crashProgram });
process.stdout.write('the run finished: the crash did not happen\n');
process.exit(3);
