import { execFileSync, spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { type BenchSuite, checkOutput, pause, percentile, sequentialLatency, throughputs } from './bench-harness.js';
import { proportionalMb } from './process-probe.js';
import { goneAt, pythonBenchProgram } from './python-zygote.js';

// Anchor: a fresh `python3 -I -S` per run, the program sent on fd 3, host calls and the result as
// JSON lines on fd 3, logs on stdout. No containment: only what a spawn per run costs.
const childCode = `
import asyncio, json, os, sys
reader = os.fdopen(3, 'rb')
def send(message):
    os.write(3, (json.dumps(message) + '\\n').encode())
class Tools:
    async def echo(self, value):
        send({'call': value})
        return json.loads(reader.readline())['value']
program = json.loads(reader.readline())['program']
source = 'async def main():\\n' + ''.join('    ' + line + '\\n' for line in program.splitlines())
scope = {'tools': Tools()}
exec(compile(source, '<program>', 'exec'), scope)
value = asyncio.run(scope['main']())
sys.stdout.flush()
send({'done': value})
`;

/** The real interpreter behind `python3`, asked once, so a shim is not timed. */
function interpreter(): string {
  return execFileSync('python3', ['-I', '-S', '-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
}

interface SpawnRun {
  readonly value: unknown;
  readonly logs: string[];
  readonly exitedAt: number;
}

function runOnce(executable: string, program: string, deadlineMs?: number, onCall?: () => void): Promise<SpawnRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(executable, ['-I', '-S', '-c', childCode], {
      env: {},
      stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    });
    const channel = child.stdio[3] as Duplex;
    let value: unknown;
    let stdout = '';
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    channel.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
        const message = JSON.parse(pending.slice(0, newline)) as { call?: unknown; done?: unknown };
        pending = pending.slice(newline + 1);
        if ('call' in message) {
          onCall?.();
          channel.write(`${JSON.stringify({ value: message.call })}\n`);
        } else value = message.done;
      }
    });
    channel.on('error', () => {});
    channel.write(`${JSON.stringify({ program })}\n`);
    let killedAt: number | undefined;
    const kill = () => {
      child.kill('SIGKILL');
      // Measured as for the zygote's children: /proc polled until the process is gone.
      killedAt = goneAt(child.pid ?? 0);
    };
    const timer = deadlineMs === undefined ? undefined : setTimeout(kill, started + deadlineMs - performance.now());
    child.once('error', reject);
    child.once('exit', () => {
      const exitedAt = killedAt ?? performance.now();
      clearTimeout(timer);
      child.once('close', () => resolve({ value, logs: stdout.split('\n').filter((line) => line !== ''), exitedAt }));
    });
  });
}

/** A new `python3 -I -S` process for every run: the anchor the zygote is measured against. */
export const suite: BenchSuite = {
  name: 'anchor: python3 spawn per run',
  async measure(scale) {
    const executable = interpreter();
    const count = Math.max(20, Math.round(200 * scale));
    const total = Math.max(40, Math.round(300 * scale));
    const once = async () => {
      const run = await runOnce(executable, pythonBenchProgram);
      checkOutput(run.value, run.logs);
    };
    const latency = await sequentialLatency(once, 10, count);
    const runsPerSecond = await throughputs(once, total);
    const kills: number[] = [];
    for (let trial = 0; trial < Math.max(8, Math.round(40 * scale)); trial += 1) {
      const deadlineMs = 50;
      const start = performance.now();
      const run = await runOnce(executable, 'await tools.echo(1)\nwhile True:\n    pass', deadlineMs);
      kills.push(run.exitedAt - (start + deadlineMs));
    }
    return [
      {
        substrate: 'anchor: python3 -I -S spawn per run',
        ...latency,
        runsPerSecond,
        killP50Ms: percentile(kills, 50),
        killP95Ms: percentile(kills, 95),
        roundTripMs: await roundTrip(executable, scale),
        rssPerLiveRunMb: await livingMemory(executable),
        note: `${executable}; no containment, asyncio and json imported by each child`,
      },
    ];
  },
};

async function roundTrip(executable: string, scale: number): Promise<number> {
  const calls = 200;
  const samples: number[] = [];
  for (let trial = 0; trial < Math.max(5, Math.round(20 * scale)); trial += 1) {
    const startMany = performance.now();
    await runOnce(executable, `for index in range(${calls}):\n    await tools.echo(index)\nreturn 1`);
    const manyMs = performance.now() - startMany;
    const startNone = performance.now();
    await runOnce(executable, 'return 1');
    samples.push((manyMs - (performance.now() - startNone)) / calls);
  }
  return percentile(samples, 50);
}

async function livingMemory(executable: string): Promise<number> {
  const live = 16;
  const children: Array<ReturnType<typeof spawn>> = [];
  let waiting = 0;
  for (let index = 0; index < live; index += 1) {
    const child = spawn(executable, ['-I', '-S', '-c', childCode], {
      env: {},
      stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
    });
    const channel = child.stdio[3] as Duplex;
    channel.on('data', () => {
      waiting += 1;
    });
    channel.on('error', () => {});
    channel.write(`${JSON.stringify({ program: 'await tools.echo(1)' })}\n`);
    children.push(child);
  }
  while (waiting < live) await pause(20);
  await pause(500);
  const perRun = children.reduce((sum, child) => sum + proportionalMb(child.pid ?? 0), 0) / live;
  for (const child of children) child.kill('SIGKILL');
  return perRun;
}
