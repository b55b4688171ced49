import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A host process (the built package, outside the test runner) holds a run, and is killed with
// SIGKILL: it runs no cleanup of its own, so only what outlives it can remove its folders.
const index = new URL('../dist/index.js', import.meta.url).href;
const host = `const { createWorkerThreadCodeRuntime } = await import(${JSON.stringify(index)});
const runtime = createWorkerThreadCodeRuntime({ poolSize: 2 });
const run = runtime.start({ program: 'await tools.started(null); while (true) {}', bindings: { tools: { started: () => { process.stdout.write('started\\n'); return null; } } } });
await run.result;`;

async function until(condition: () => boolean, limitMs: number): Promise<void> {
  for (let waited = 0; waited < limitMs && !condition(); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('worker-thread runtime, its host killed', () => {
  it('leaves no sluice-worker folder in the temp directory after the host gets SIGKILL', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'sluice-host-kill-'));
    try {
      const child = spawn(process.execPath, ['--input-type=module', '-e', host], {
        env: { ...process.env, TMPDIR: temp },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      const exited = new Promise((resolve) => child.on('close', resolve));
      const folders = () => readdirSync(temp).filter((name) => name.startsWith('sluice-worker-'));
      try {
        await until(() => stdout.includes('started'), 30_000);
        expect(stdout).toContain('started');
        expect(folders()).not.toEqual([]);
      } finally {
        child.kill('SIGKILL');
      }
      await exited;
      // The reaper needs a moment to see the host's end of its pipe close; bounded.
      await until(() => folders().length === 0, 10_000);
      expect(folders()).toEqual([]);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }, 60_000);
});
