import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type HostFunction, normalizeBindings } from '@sluice/code-runtime';
import { pickRunLimits, RunController } from '@sluice/code-runtime-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerProcess } from './worker-process.js';
import type { WorkerProcessContainment } from './worker-process-spawn.js';
import type { CompiledProgram } from './worker-thread-compile.js';
import { resolveWorkerThreadSettings } from './worker-thread-settings.js';

// The worker process runs model code in one of its threads, so the host treats it as hostile.
// These children are stand-ins for a process whose worker was taken over: each misbehaves in one
// way, and the host must end the run as a result, never throw, and never call what was not granted.
let scratch = '';
// Made only when a test here runs: a filtered run skips afterAll.
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sluice-hostile-process-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bare: WorkerProcessContainment = { network: false, rlimits: false, nice: false, permissions: false };
const settings = resolveWorkerThreadSettings({ wallTimeMs: 2_000, poolSize: 1, valueBytes: 1024, hostCallBytes: 1024 });
const program: CompiledProgram = { code: '', map: '{"version":3,"sources":[],"names":[],"mappings":""}', lines: 1 };

/** A child that says it is ready, then answers the host's `run` frame with `onRun` (JavaScript source using `send` and `line`). */
function hostileChild(name: string, onRun: string, beforeReady = ''): string {
  const path = join(scratch, `${name}.mjs`);
  writeFileSync(
    path,
    `const send = (frame) => process.stdout.write(JSON.stringify(frame) + '\\n');
const line = (text) => process.stdout.write(text);
${beforeReady}
send({ type: 'ready' });
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let newline = buffered.indexOf('\\n'); newline !== -1; newline = buffered.indexOf('\\n')) {
    const frame = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (frame.type === 'run') { ${onRun} }
  }
});
process.stdin.on('end', () => process.exit(0));
`,
  );
  return path;
}

interface Started {
  readonly process: WorkerProcess;
  readonly freed: boolean[];
}

async function startProcess(script: string): Promise<Started> {
  const freed: boolean[] = [];
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const started = new WorkerProcess(
    settings,
    (_slot, reusable) => {
      freed.push(reusable);
      ready();
    },
    bare,
    script,
  );
  await isReady;
  return { process: started, freed };
}

function controller(tools: Record<string, HostFunction> = {}): RunController {
  return new RunController({ bindings: normalizeBindings({ tools }), limits: pickRunLimits(settings) });
}

describe('WorkerProcess against a hostile child', () => {
  it('refuses a line longer than its budget before buffering it, and kills the process', async () => {
    const { process: child } = await startProcess(hostileChild('oversized', "line('x'.repeat(32 * 1024 * 1024));"));
    const run = controller();
    child.execute(run, program);
    const result = await run.result;
    expect(result).toMatchObject({ ok: false, failure: { kind: 'protocol' } });
    expect(result.ok ? '' : result.failure.message).toContain('longer than');
    await child.exited;
  });

  it('refuses a line that is not JSON, a frame of an unknown type and a forged log level', async () => {
    const bodies = [
      "line('hello\\n');",
      "send({ type: 'explode', seq: frame.seq });",
      "send({ type: 'logs', seq: frame.seq, lines: [['root', 'x']] });",
      "send({ type: 'logs', seq: frame.seq, lines: 'not a list' });",
      "send({ type: 'done', seq: frame.seq, kind: 'value', payload: 'Xnot-encoded', cpuMs: 1 });",
      "send({ type: 'stopped', seq: frame.seq, cause: 'made-up', detail: 1, cpuMs: 1 });",
      "send({ type: 'call', seq: frame.seq, callId: 'one', namespace: 'tools', name: 'echo', input: 'T1' });",
    ];
    for (const [index, body] of bodies.entries()) {
      const { process: child } = await startProcess(hostileChild(`malformed-${index}`, body));
      const run = controller();
      child.execute(run, program);
      expect(await run.result, body).toMatchObject({ ok: false, failure: { kind: 'protocol' } });
      await child.exited;
    }
  });

  it('checks a forged call against the grant: a function that was not granted is never called', async () => {
    let secretCalls = 0;
    const secret: HostFunction = async () => {
      secretCalls += 1;
      return 'leaked';
    };
    const { process: child } = await startProcess(
      hostileChild(
        'forged-call',
        `send({ type: 'call', seq: frame.seq, callId: 1, namespace: 'tools', name: 'secret', input: 'Tnull', positional: false });
         send({ type: 'done', seq: frame.seq, kind: 'none', payload: null, cpuMs: 1 });`,
      ),
    );
    const run = new RunController({
      bindings: normalizeBindings({ tools: { echo: async (input) => input }, vault: { secret } }),
      limits: pickRunLimits(settings),
    });
    child.execute(run, program);
    const result = await run.result;
    expect(secretCalls).toBe(0);
    expect(result.calls[0]).toMatchObject({ namespace: 'tools', name: 'secret', ok: false });
    await child.retire();
  });

  it('ignores frames of another run, and frames after the end', async () => {
    const { process: child } = await startProcess(
      hostileChild(
        'wrong-seq',
        `send({ type: 'logs', seq: frame.seq + 7, lines: [['log', 'not yours']] });
         send({ type: 'done', seq: frame.seq, kind: 'value', payload: 'T"mine"', cpuMs: 1 });
         send({ type: 'logs', seq: frame.seq, lines: [['log', 'too late']] });`,
      ),
    );
    const run = controller();
    child.execute(run, program);
    const result = await run.result;
    expect(result).toMatchObject({ ok: true, value: 'mine', logs: [] });
    await child.retire();
  });

  it('kills a process that does not stop a run when told to, and says the kill is complete only once it exited', async () => {
    const { process: child, freed } = await startProcess(hostileChild('deaf', '/* never answers, ignores stop */'));
    const run = controller();
    child.execute(run, program);
    run.cancel('test');
    expect(await run.result).toMatchObject({ ok: false, failure: { kind: 'abort' } });
    await child.settled();
    await child.exited;
    expect(child.state).toBe('gone');
    expect(freed.at(-1)).toBe(false);
  });

  it('ends the run as memory when the process died saying it ran out of heap, and as substrate-exit otherwise', async () => {
    const oom = await startProcess(
      hostileChild(
        'oom',
        "process.stderr.write('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\\n'); process.exit(134);",
      ),
    );
    const first = controller();
    oom.process.execute(first, program);
    expect(await first.result).toMatchObject({ ok: false, failure: { kind: 'memory' } });

    const crash = await startProcess(hostileChild('crash', 'process.kill(process.pid, "SIGSEGV");'));
    const second = controller();
    crash.process.execute(second, program);
    const result = await second.result;
    expect(result).toMatchObject({ ok: false, failure: { kind: 'substrate-exit' } });
    expect(result.ok ? '' : result.failure.message).toContain('SIGSEGV');
    expect(crash.freed.at(-1)).toBe(false);
  });

  it('reports a process that died before it was ready, with what it said', async () => {
    const freed: boolean[] = [];
    const script = hostileChild('no-boot', '', "process.stderr.write('cannot start: no luck\\n'); process.exit(3);");
    const started = new WorkerProcess(settings, (_slot, reusable) => freed.push(reusable), bare, script);
    await started.exited;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(freed).toEqual([false]);
    expect(started.booted).toBe(false);
    expect(started.problem).toContain('no luck');
  });
});
