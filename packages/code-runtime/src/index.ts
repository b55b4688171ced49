export { type AwaitedResult, awaitResult } from './await-result.js';
export {
  type BindingEntry,
  bindingNameProblem,
  isValidBindingName,
  javascriptReservedWords,
  maxBindingNameLength,
  normalizeBindings,
  pythonReservedWords,
  validateBindingName,
} from './binding-name.js';
export type {
  CodeRunEvent,
  HostCallEndEvent,
  HostCallStartEvent,
  LogEntry,
  LogEvent,
  LogLevel,
} from './code-run-event.js';
export {
  type AbortFailure,
  type CodeRunFailure,
  type ExceptionFailure,
  type FailureBase,
  type FailureKind,
  failureKinds,
  type MemoryFailure,
  type OtherFailure,
  type OutputLimitFailure,
  type TimeBudget,
  type TimeoutFailure,
  type UnavailableFailure,
} from './code-run-failure.js';
export type {
  CodeRunFailed,
  CodeRunResult,
  CodeRunResultBase,
  CodeRunSuccess,
  CodeRunUsage,
  HostCallRecord,
} from './code-run-result.js';
export {
  type Bindings,
  type CodeRun,
  type CodeRunDeterminism,
  type CodeRunRequest,
  type CodeRuntime,
  type CodeRuntimeDeterminism,
  type CodeRuntimeLanguage,
  type CodeRuntimeLimits,
  type CodeRuntimeReadiness,
  type CodeRuntimeReadyOptions,
  type HostCallContext,
  type HostFunction,
  specificationVersion,
} from './code-runtime.js';
export { InvalidRequestError, type InvalidRequestErrorOptions } from './errors/invalid-request-error.js';
export { InvalidSettingsError, type InvalidSettingsErrorOptions } from './errors/invalid-settings-error.js';
export { RuntimeDisposedError } from './errors/runtime-disposed-error.js';
export { SluiceError, type SluiceErrorOptions } from './errors/sluice-error.js';
export { type ForeignTextOptions, foreignErrorMessage, foreignText } from './foreign-text.js';
export {
  type CheckedJsonValue,
  type ConversionProblem,
  checkJsonValue,
  conversionProblem,
  type ToJsonValueOptions,
  type ToJsonValueResult,
  toJsonValue,
} from './json-convert.js';
export {
  type JsonMeasure,
  jsonDepthLimit,
  jsonPathOf,
  type MeasureJsonOptions,
  measureJson,
} from './json-measure.js';
export type { JsonArray, JsonObject, JsonValue } from './json-value.js';
export {
  describeJsonViolation,
  findJsonViolation,
  isLosslessJson,
  type JsonViolation,
} from './lossless-json.js';
export { cutUtf8, truncateUtf8, utf8ByteLength, wellFormedText } from './utf8.js';
