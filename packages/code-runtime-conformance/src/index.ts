export { type BuiltinCase, builtinCaseHelpers, builtinCases } from './builtins-cases.js';
export {
  type CodeRuntimeConformanceOptions,
  type ConformanceBudgets,
  conformanceAcquireBudgets,
  conformanceBudgets,
  conformanceColdStartBudgets,
  conformanceQueueBudgets,
  conformanceTimeoutBudgets,
} from './conformance-options.js';
export { describeCodeRuntimeConformance } from './describe-code-runtime-conformance.js';
export { type ConformanceProgramName, type ConformancePrograms, conformancePrograms } from './programs.js';
