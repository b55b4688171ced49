// Writes to a PGlite run store in the directory given, prints what it wrote as one JSON line, and
// waits to be killed (the test sends SIGKILL).
import { createPGliteRunStore } from '../pglite-run-store.js';

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: pglite-writer.ts DATA_DIR');
const store = createPGliteRunStore({ dataDir });
const runId = 'run-killed';
const metadata = { z: 'last', a: 'first', text: 'nul:\u0000 lone:\ud800' };
const value = { b: [1, { d: null, c: true }], a: 'é' };
await store.createRun(
  { runId, program: 'return 1', language: 'typescript', seed: 7, startTime: 0, fingerprint: 'f', metadata },
  'writer',
  60_000,
);
await store.recordIntent(runId, 1, { namespace: 'tools', name: 'done', input: {} });
await store.recordOutcome(runId, 1, { ok: true, value: 'committed' });
await store.recordIntent(runId, 2, { namespace: 'tools', name: 'in_flight', input: {} });
await store.commitValues('conversation', { key: value });
process.stdout.write(`${JSON.stringify({ runId, metadata, value })}\n`);
setInterval(() => undefined, 60_000);
