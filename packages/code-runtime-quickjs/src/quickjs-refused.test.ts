import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { QuickJsCodeRuntime } from './quickjs-code-runtime.js';
import { resolveQuickJsSettings } from './quickjs-settings.js';
import { workerScript } from './quickjs-slot.js';

const directory = mkdtempSync(join(tmpdir(), 'sluice-quickjs-refused-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * The real worker, except that a thread refuses the runs it is given, as the real one does once its
 * engine could not make or free a context: every thread (`always`), or only the first thread that
 * is given a run (`once`, decided by creating a file no other thread can create again).
 */
function refusingScript(mode: 'once' | 'always'): string {
  const path = join(directory, `refusing-${mode}.mjs`);
  const flag = join(directory, `refused-${mode}`);
  writeFileSync(
    path,
    `import { closeSync, openSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
let refusing;
const refuses = () => {
  if (refusing === undefined) {
    try {
      closeSync(openSync(${JSON.stringify(flag)}, 'wx'));
      refusing = true;
    } catch {
      refusing = ${mode === 'always'};
    }
  }
  return refusing;
};
const on = parentPort.on.bind(parentPort);
parentPort.on = (event, listener) =>
  on(event, event !== 'message' ? listener : (message) => {
    if (message.type === 'run' && refuses()) {
      parentPort.postMessage({ type: 'refused', seq: message.seq, reason: 'a runtime that would not free' });
      return;
    }
    listener(message);
  });
await import(${JSON.stringify(pathToFileURL(workerScript).href)});
`,
  );
  return path;
}

describe('QuickJS threads that refuse a run before starting it', () => {
  it('gives the run to another thread, which runs it', async () => {
    const runtime = new QuickJsCodeRuntime(resolveQuickJsSettings({ poolSize: 2 }), refusingScript('once'));
    try {
      const result = await runtime.run({ program: 'console.log("ran"); return 6 * 7;' });
      expect(result).toMatchObject({ ok: true, value: 42, logs: [{ text: 'ran' }] });
      // The refusing thread was replaced; the runtime goes on serving runs.
      const next = await runtime.run({ program: 'return "next";' });
      expect(next).toMatchObject({ ok: true, value: 'next' });
    } finally {
      await runtime.dispose();
    }
  }, 30_000);

  it('fails the run as substrate-exit, naming the reason, when the second thread refuses too', async () => {
    const runtime = new QuickJsCodeRuntime(resolveQuickJsSettings({ poolSize: 2 }), refusingScript('always'));
    try {
      const result = await runtime.run({ program: 'return 1;' });
      expect(result).toMatchObject({
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message: 'The QuickJS runtime failed to start the program: a runtime that would not free',
        },
      });
    } finally {
      await runtime.dispose();
    }
  }, 30_000);
});
