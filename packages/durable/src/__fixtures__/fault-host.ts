// A host process for the fault tests (durable-faults-*.test.ts). It opens the run store named on the
// command line, then starts, resumes or decides one durable run, printing stage markers to stdout
// (`stage ready`, `stage intent-written 3`, ...) and appending every real tool execution to the
// ledger file. `stop=<point>:<seq>` makes it stop there (see FaultPoint) until the test signals it.
// On SIGTERM it does what a service does: `await runs.close()`, print the outcome it got, exit 143.
//
//   fault-host.ts pglite|postgres DATA_DIR|URL RUN_ID start|resume|decide LEDGER [key=value...]
//   keys: host=A  program=basic|pay|adaptive  stop=in-tool:3  go=FILE  lease=MS  notify=1
//         token=TOKEN  decision=allow|deny  barrier=FILE (decide waits for it)
import type { DurableOutcome } from '../index.js';
import {
  createFaultHost,
  type FaultPoint,
  type FaultProgram,
  type FaultStop,
  faultPrograms,
  fileAppears,
  openStore,
  type StoreKind,
  stoppingStore,
} from './fault-host-kit.js';

const [kind, where, runId, mode, ledger, ...rest] = process.argv.slice(2);
if (kind === undefined || where === undefined || runId === undefined || mode === undefined || ledger === undefined) {
  throw new Error('usage: fault-host.ts pglite|postgres DATA_DIR|URL RUN_ID start|resume|decide LEDGER [key=value...]');
}
const settings = new Map(rest.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const print = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

// A held write or tool is a promise nothing else keeps alive: this timer does, and ends a host the
// test forgot (it exits 71 after 150 s).
const watchdog = setTimeout(() => {
  print('watchdog');
  process.exit(71);
}, 150_000);

let stop: FaultStop | undefined;
const stopSetting = settings.get('stop');
if (stopSetting !== undefined) {
  const [point, seq] = stopSetting.split(':');
  const go = settings.get('go');
  stop = { point: point as FaultPoint, seq: Number(seq), ...(go === undefined ? {} : { go }) };
}
const leaseSetting = settings.get('lease');
const store = stoppingStore(openStore(kind as StoreKind, where), stop, print);
const { runs, runtime } = createFaultHost({
  store,
  ledger,
  host: settings.get('host') ?? 'A',
  ...(stop === undefined ? {} : { stop }),
  ...(leaseSetting === undefined ? {} : { leaseMs: Number(leaseSetting) }),
  notify: settings.get('notify') === '1',
  print,
});

let reported: Promise<void> = Promise.resolve();
let terminating = false;
process.once('SIGTERM', () => {
  terminating = true;
  print('signal SIGTERM');
  // The close deadline is armed before the close work: a close that hangs exits non-zero.
  setTimeout(() => {
    print('deadline: close did not finish within 20 s');
    process.exit(70);
  }, 20_000);
  runs
    .close()
    .then(() => reported)
    .then(() => shutDown(143))
    .catch((error: unknown) => {
      print(`close-failed ${String(error)}`);
      process.exit(72);
    });
});

async function shutDown(code: number): Promise<never> {
  await runtime.dispose();
  await store.close();
  clearTimeout(watchdog);
  process.exit(code);
}

// Open the store (and apply its migrations) and load the runtime before the scenario starts.
await Promise.all([store.readValues('warm-up'), runtime.run({ program: 'return 1' })]);
print('stage ready');

let work: Promise<DurableOutcome & { decision?: unknown }>;
if (mode === 'start') {
  const program = faultPrograms[(settings.get('program') ?? 'basic') as FaultProgram];
  work = runs.start({ runId, program });
} else if (mode === 'resume') {
  work = runs.resume(runId);
} else if (mode === 'decide') {
  const token = settings.get('token') ?? '';
  const decision = settings.get('decision') === 'deny' ? { decision: 'deny' as const } : { decision: 'allow' as const };
  const barrier = settings.get('barrier');
  print('stage waiting-barrier');
  if (barrier !== undefined) await fileAppears(barrier, 60_000);
  work = runs.decide(token, decision);
} else {
  throw new Error(`unknown mode ${mode}`);
}
reported = work.then(
  (outcome) => print(`outcome ${JSON.stringify(outcome)}`),
  (error: unknown) => print(`rejected ${error instanceof Error ? error.message : String(error)}`),
);
await reported;
// On SIGTERM the handler exits once the outcome is printed.
if (!terminating) await shutDown(0);
