import { describeCodeRuntimeConformance } from './index.js';
import { StubCodeRuntime } from './stub-code-runtime.test-helper.js';

describeCodeRuntimeConformance({
  name: 'stub',
  language: 'typescript',
  create: (budgets) => new StubCodeRuntime('typescript', budgets),
});

describeCodeRuntimeConformance({
  name: 'stub',
  language: 'python',
  create: (budgets) => new StubCodeRuntime('python', budgets),
});
