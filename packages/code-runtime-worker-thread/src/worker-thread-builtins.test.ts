import { builtinCaseHelpers, builtinCases } from '@sluice/code-runtime-conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerThreadCodeRuntime } from './index.js';

// The ES2023–ES2025 built-ins, test262-style, on Node 20's V8, through the polyfills loaded into the run's context on first use.
const runtime = createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

describe('worker-thread built-ins', () => {
  for (const testCase of builtinCases) {
    it(testCase.name, async () => {
      const result = await runtime.run({ program: `${builtinCaseHelpers}${testCase.program}` });
      expect(result.ok ? { value: result.value } : result.failure, testCase.program).toEqual({ value: testCase.value });
      // The first run of the file starts the runtime and the TypeScript parser: seconds on a loaded machine.
    }, 30_000);
  }
});
