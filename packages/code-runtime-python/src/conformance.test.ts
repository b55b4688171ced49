import { describeCodeRuntimeConformance } from '@sluice/code-runtime-conformance';
import { createPythonCodeRuntime } from './index.js';

describeCodeRuntimeConformance({
  name: 'python',
  language: 'python',
  create: (budgets) =>
    createPythonCodeRuntime({
      wallTimeMs: budgets.wallTimeMs,
      logBytes: budgets.logBytes,
      valueBytes: budgets.valueBytes,
      memoryBytes: budgets.memoryBytes,
      poolSize: budgets.poolSize,
      acquireTimeoutMs: budgets.acquireTimeoutMs,
    }),
});
