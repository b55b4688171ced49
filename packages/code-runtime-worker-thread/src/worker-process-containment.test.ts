import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime, resolveWorkerThreadSettings, WorkerThreadCodeRuntime } from './index.js';
import { addressSpaceBytes, missingLayers, probeContainment } from './worker-process-spawn.js';
import { childPids } from './worker-processes.test-helper.js';

// The worker process is inspected from outside, through /proc, while it holds a run: each check
// fails when the layer `isolation` claims is not really applied.
const mebibyte = 1024 * 1024;
const containment = probeContainment();

describe('worker process containment (Linux)', () => {
  // A file the host holds open when the runtime starts its processes: it must not be inherited.
  const marker = join(tmpdir(), `sluice-containment-${process.pid}.txt`);
  let markerFd: number | undefined;
  const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, memoryBytes: 64 * mebibyte, wallTimeMs: 20_000 });
  // Made before any process starts, and only when a test here runs (a filtered run skips afterAll).
  beforeAll(() => {
    writeFileSync(marker, 'host secret');
    markerFd = openSync(marker, 'r');
  });
  afterAll(async () => {
    await runtime.dispose();
    if (markerFd !== undefined) closeSync(markerFd);
    rmSync(marker, { force: true });
  });

  // The program waits in this host call while the test looks at its process.
  let release: () => void = () => {};
  let held: () => void = () => {};
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const hold: HostFunction = () =>
    new Promise((resolve) => {
      release = () => resolve(null);
      held();
    });

  it('runs the program in a child process with an empty environment, a private directory and no inherited descriptors', async () => {
    const run = runtime.start({ program: 'await tools.hold(null); return 1;', bindings: { tools: { hold } } });
    await holding;
    const [pid] = childPids();
    expect(pid).toBeDefined();
    try {
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toBe('');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      expect(cwd).toMatch(/sluice-worker-/);
      expect(readdirSync(cwd)).toEqual([]);
      const descriptors = readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      });
      expect(descriptors).not.toContain(marker);
      expect(descriptors.filter((target) => target.startsWith('/') && !target.startsWith('/dev/'))).toEqual([]);

      if (containment.network) {
        expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
      }
      if (containment.rlimits) {
        const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
        expect(limits).toMatch(/Max open files\s+256\s+256/);
        expect(limits).toMatch(/Max core file size\s+0\s+0/);
        expect(limits).toMatch(/Max file size\s+0\s+0/);
        const addressSpace = String(addressSpaceBytes(64 * mebibyte));
        expect(limits).toMatch(new RegExp(`Max address space\\s+${addressSpace}\\s+${addressSpace}`));
      }
      if (containment.nice) {
        // Field 19 of stat is the nice value; the program's thread runs lower, the process's main thread does not.
        const nice = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        const threads = readdirSync(`/proc/${pid}/task`).map((tid) =>
          nice(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')),
        );
        const own = getPriority();
        expect(nice(readFileSync(`/proc/${pid}/stat`, 'utf8'))).toBe(own);
        if (own < 5) expect(threads).toContain(5);
      }
      if (containment.permissions) {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        expect(command).toContain('--experimental-permission');
        expect(command.some((argument) => argument.startsWith('--allow-fs-write'))).toBe(false);
        expect(command.some((argument) => argument.startsWith('--allow-child-process'))).toBe(false);
      }
    } finally {
      release();
    }
    expect(await run.result).toMatchObject({ ok: true, value: 1 });
  });

  it('says in isolation exactly which layers were applied', () => {
    const missing = missingLayers(containment);
    for (const layer of missing) expect(runtime.isolation).toContain(layer);
    if (containment.network) expect(runtime.isolation).toContain('network namespace');
    if (missing.length === 0) expect(runtime.isolation).not.toContain('Not applied');
  });

  it('fails closed with requireContainment when a layer is missing, and says so in isolation', async () => {
    const settings = resolveWorkerThreadSettings({ requireContainment: true, poolSize: 1 });
    const strict = new WorkerThreadCodeRuntime(settings, { ...containment, network: false });
    try {
      const result = await strict.run({ program: 'return 1;' });
      expect(result).toMatchObject({ ok: false, failure: { kind: 'substrate-exit' } });
      expect(result.ok ? '' : result.failure.message).toContain('requireContainment');
      expect(result.ok ? '' : result.failure.message).toContain('unshare --net');
      expect(strict.isolation).toContain('Not applied on this machine: a network namespace (unshare --net)');
    } finally {
      await strict.dispose();
    }
    const relaxed = new WorkerThreadCodeRuntime(resolveWorkerThreadSettings({ poolSize: 1 }), {
      network: false,
      rlimits: false,
      nice: false,
      permissions: false,
    });
    try {
      expect(await relaxed.run({ program: 'return 2;' })).toMatchObject({ ok: true, value: 2 });
      expect(relaxed.isolation).not.toContain('rlimits (address');
    } finally {
      await relaxed.dispose();
    }
  });
});

describe('worker process start-up failures', () => {
  it('ends runs as substrate-exit, naming the cause, when the private directory cannot be created', async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(tmpdir(), 'sluice-missing-directory', 'nowhere');
    const runtime = createWorkerThreadCodeRuntime({ poolSize: 1 });
    try {
      expect(typeof runtime.isolation).toBe('string');
      const result = await runtime.run({ program: 'return 1;' });
      expect(result).toMatchObject({ ok: false, failure: { kind: 'substrate-exit' } });
      expect(result.ok ? '' : result.failure.message).toContain('private directory');
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await runtime.dispose();
    }
    const healthy = createWorkerThreadCodeRuntime({ poolSize: 1 });
    try {
      expect(await healthy.run({ program: 'return 2;' })).toMatchObject({ ok: true, value: 2 });
    } finally {
      await healthy.dispose();
    }
  });
});
