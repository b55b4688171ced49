import { describeCodeRuntimeConformance } from '@sluice/code-runtime-conformance';
import { createQuickJsCodeRuntime } from './index.js';

describeCodeRuntimeConformance({
  name: 'quickjs',
  language: 'typescript',
  create: (budgets) =>
    createQuickJsCodeRuntime({
      wallTimeMs: budgets.wallTimeMs,
      logBytes: budgets.logBytes,
      valueBytes: budgets.valueBytes,
      memoryBytes: budgets.memoryBytes,
      poolSize: budgets.poolSize,
      acquireTimeoutMs: budgets.acquireTimeoutMs,
    }),
});
