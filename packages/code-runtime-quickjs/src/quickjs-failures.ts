import { type CompiledProgram, describeException, type RunOutcome } from '@sluice/code-runtime-kit';
import type { QuickJsEnding } from './quickjs-frames.js';
import type { ResolvedQuickJsSettings } from './quickjs-settings.js';

/** Turns how the worker said a run ended into the outcome the run controller settles. */
export function describeQuickJsEnding(
  program: CompiledProgram,
  ending: QuickJsEnding,
  settings: ResolvedQuickJsSettings,
): RunOutcome {
  const { cpuTimeMs, memoryBytes, valueBytes } = settings;
  switch (ending.kind) {
    case 'none':
      return { ok: true };
    case 'value':
      return { ok: true, value: JSON.parse(ending.json) as unknown };
    case 'too-large':
      return {
        ok: false,
        failure: {
          kind: 'output-limit',
          limitBytes: valueBytes,
          message: `The returned value is larger than the ${valueBytes}-byte budget. Return less: a summary, or the first items.`,
        },
      };
    case 'not-json':
      return {
        ok: false,
        failure: {
          kind: 'invalid-output',
          message: `The program returned a value that is not JSON: ${ending.message}. Return plain objects, arrays, strings, finite numbers, booleans and null.`,
        },
      };
    case 'error':
      return { ok: false, failure: describeException(program, ending) };
    case 'stopped':
      switch (ending.cause) {
        case 'cpu-time':
          return {
            ok: false,
            failure: {
              kind: 'timeout',
              budget: 'cpu-time',
              limitMs: cpuTimeMs,
              message: `The program ran past its ${cpuTimeMs} ms CPU budget and was stopped. Do less computation per run, or move heavy work into host functions.`,
            },
          };
        case 'memory':
          return {
            ok: false,
            failure: {
              kind: 'memory',
              limitBytes: memoryBytes,
              message: `The program ran out of its ${memoryBytes}-byte memory budget and was stopped. Keep less data in memory at once.`,
            },
          };
        case 'trap':
          return {
            ok: false,
            failure: {
              kind: 'substrate-exit',
              message: `The QuickJS engine stopped with an internal error (${ending.detail.slice(0, 200)}); the run was ended and the engine replaced.`,
            },
          };
        default:
          // Interrupted at the host's request: the controller has already settled the run.
          return {
            ok: false,
            failure: {
              kind: 'substrate-exit',
              message: 'The QuickJS worker stopped the program without being asked to.',
            },
          };
      }
  }
}
