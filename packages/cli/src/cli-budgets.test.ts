import { type CodeRuntime, InvalidSettingsError } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterEach, describe, expect, it } from 'vitest';
import { type BudgetSettings, budgetFlags, createBudgetedRuntime, readBudgetFlags } from './cli-budgets.js';
import { UsageError } from './cli-io.js';

const created: CodeRuntime[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((runtime) => runtime.dispose()));
});

function providerMessage(create: () => CodeRuntime): string {
  try {
    created.push(create());
  } catch (error) {
    expect(InvalidSettingsError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the provider to refuse the settings');
}

async function refusal(
  language: 'typescript' | 'python',
  budgets: BudgetSettings,
  runtime?: 'worker-thread' | 'quickjs',
): Promise<UsageError> {
  try {
    created.push(await createBudgetedRuntime(language, budgets, runtime));
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected the budgets to be refused');
}

describe('createBudgetedRuntime', () => {
  it('gives the runtime the budgets from the flags', async () => {
    const budgets = readBudgetFlags({ 'wall-time-ms': '5000', 'memory-bytes': '134217728', 'host-calls': '0' });
    const typescript = await createBudgetedRuntime('typescript', budgets);
    const python = await createBudgetedRuntime('python', budgets);
    created.push(typescript, python);
    expect(typescript.limits).toMatchObject({ wallTimeMs: 5000, memoryBytes: 134217728, hostCalls: 0 });
    expect(python.limits).toMatchObject({ wallTimeMs: 5000, memoryBytes: 134217728, hostCalls: 0 });
  });

  it("refuses a bad value with the provider's own message, naming the flag", async () => {
    const cases: [BudgetSettings, () => CodeRuntime][] = [
      [{ wallTimeMs: 0 }, () => createWorkerThreadCodeRuntime({ wallTimeMs: 0 })],
      [{ cpuTimeMs: 1.5 }, () => createWorkerThreadCodeRuntime({ cpuTimeMs: 1.5 })],
      [{ hostCalls: '5s' }, () => createWorkerThreadCodeRuntime({ hostCalls: '5s' as unknown as number })],
      [{ memoryBytes: 1024 }, () => createWorkerThreadCodeRuntime({ memoryBytes: 1024 })],
    ];
    for (const [budgets, direct] of cases) {
      const [setting] = Object.keys(budgets);
      const flag = budgetFlags.find((entry) => entry.setting === setting)!.flag;
      const error = await refusal('typescript', budgets);
      expect(error.message).toBe(`Bad --${flag}: ${providerMessage(direct)}`);
      expect(error.commandLine).toBe(true);
    }
  });

  it('validates against the provider of the language, which may differ', async () => {
    // 40 MiB is a fine heap for a worker thread but cannot hold Python's output budgets.
    const budgets = { memoryBytes: 40 * 1024 * 1024 };
    created.push(await createBudgetedRuntime('typescript', budgets));
    expect((await refusal('python', budgets)).message).toBe(
      `Bad --memory-bytes: ${providerMessage(() => createPythonCodeRuntime(budgets))}`,
    );
  });

  it('creates the QuickJS provider for a TypeScript program with runtime quickjs, and worker-thread otherwise', async () => {
    const quickjs = await createBudgetedRuntime('typescript', { wallTimeMs: 5000 }, 'quickjs');
    const workerThread = await createBudgetedRuntime('typescript', { wallTimeMs: 5000 }, 'worker-thread');
    const byDefault = await createBudgetedRuntime('typescript', { wallTimeMs: 5000 });
    created.push(quickjs, workerThread, byDefault);
    expect(quickjs.isolation).toContain('QuickJS');
    expect(quickjs.limits).toMatchObject({ wallTimeMs: 5000, memoryBytes: 64 * 1024 * 1024 });
    expect(workerThread.isolation).not.toContain('QuickJS');
    expect(byDefault.isolation).toBe(workerThread.isolation);
  });

  it("validates budgets for quickjs with the QuickJS provider's own ranges and messages", async () => {
    // 10 MiB is a fine QuickJS allocation limit but below the worker-thread provider's 16 MiB minimum.
    const budgets = { memoryBytes: 10 * 1024 * 1024 };
    const quickjs = await createBudgetedRuntime('typescript', budgets, 'quickjs');
    created.push(quickjs);
    expect(quickjs.limits).toMatchObject({ memoryBytes: 10 * 1024 * 1024 });
    expect((await refusal('typescript', budgets)).message).toBe(
      `Bad --memory-bytes: ${providerMessage(() => createWorkerThreadCodeRuntime(budgets))}`,
    );
    expect((await refusal('typescript', { memoryBytes: 1024 }, 'quickjs')).message).toBe(
      `Bad --memory-bytes: ${providerMessage(() => createQuickJsCodeRuntime({ memoryBytes: 1024 }))}`,
    );
    const error = await refusal('typescript', { cpuTimeMs: 0 }, 'quickjs');
    expect(error.message).toBe(
      `Bad --cpu-time-ms: ${providerMessage(() => createQuickJsCodeRuntime({ cpuTimeMs: 0 }))}`,
    );
    expect(error.commandLine).toBe(true);
  });

  it('refuses a runtime choice for a Python program', async () => {
    expect((await refusal('python', {}, 'quickjs')).message).toBe(
      '--runtime quickjs runs TypeScript and JavaScript; Python programs have one runtime.',
    );
  });
});
