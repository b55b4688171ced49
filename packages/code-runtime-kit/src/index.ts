export { codemodeAmbiguity, codemodeGlobal, codemodeReadings } from './binding-codemode.js';
export { CodeRuntimeBase, type LaunchOptions } from './code-runtime-base.js';
export {
  type CompileThreadActivity,
  compileInThread,
  compileThreadActivity,
  terminateCompileThread,
} from './compile-thread.js';
export { captureInspectIntrinsics, type InspectIntrinsics, makeInspector } from './console-inspect.js';
export { makePrintf, type PrintfIntrinsics } from './console-printf.js';
export { FifoQueue } from './fifo-queue.js';
export { JsonLineReader } from './json-lines.js';
export { LogBuffer, logTruncationNotice } from './log-buffer.js';
export {
  type CompiledProgram,
  type CompileResult,
  describeException,
  mapProgramPositions,
  ProgramCompiler,
  type ThrownDescription,
} from './program-compile.js';
export { type Insertion, modelColumn } from './program-edits.js';
export { type Normalised, normaliseProgram } from './program-normalise.js';
export {
  abortReasonText,
  type HostReply,
  RunController,
  type RunControllerOptions,
  type RunOutcome,
  type SubstrateUsage,
} from './run-controller.js';
export { RunGate } from './run-gate.js';
export { defaultRunLimits, pickRunLimits, type RunLimits } from './run-limits.js';
export {
  booleanSetting,
  checkSettingsObject,
  type IntegerBounds,
  integerSetting,
  type SharedRunLimitSettings,
  sharedRunLimitSettings,
  stringSetting,
} from './settings.js';
export { webGlobalMakers, webGlobalsSource } from './web-globals.js';
export { makeWebBasics } from './web-globals-basics.js';
export { makeEncodingGlobals, type Utf8 } from './web-globals-encoding.js';
export type { WebHooks, WebMade } from './web-globals-hooks.js';
export { makeSearchParams, type Percent, type SearchParamsLink } from './web-globals-search-params.js';
export { makeUrlGlobals } from './web-globals-url.js';
export { makeUrlHost, type UrlHost } from './web-globals-url-host.js';
