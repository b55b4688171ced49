import { describeCodeRuntimeConformance } from '@sluice/code-runtime-conformance';
import { createWorkerThreadCodeRuntime } from './index.js';

describeCodeRuntimeConformance({
  name: 'worker-thread',
  language: 'typescript',
  create: (budgets) =>
    createWorkerThreadCodeRuntime({
      wallTimeMs: budgets.wallTimeMs,
      logBytes: budgets.logBytes,
      valueBytes: budgets.valueBytes,
      memoryBytes: budgets.memoryBytes,
      poolSize: budgets.poolSize,
      acquireTimeoutMs: budgets.acquireTimeoutMs,
    }),
});
