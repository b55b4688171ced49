import type { ExceptionFailure } from '@sluice/code-runtime';
import { type CompiledProgram, describeException, modelColumn, type RunOutcome } from '@sluice/code-runtime-kit';
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
      return { ok: false, failure: locateByName(program, ending, describeException(program, ending)) };
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

const identifier = /^[A-Za-z_$][\w$]*$/;
const escapeDollars = (text: string) => text.replace(/[$]/g, '\\$');
/** At most this many places are named when the name occurs more than once. */
const namedPlaces = 5;

/**
 * Where an error at a property read of `undefined`/`null` or at an undefined name happened, found by
 * searching the program for that name: QuickJS records a position only at calls, so it reports the
 * last call before such an error (or nothing). A name found once, at or after the reported line, is
 * the error's line and column; found up to five times on one line, that line; on several lines, the
 * message lists them and the failure has no line; otherwise, or when esbuild rewrote the program,
 * the engine's report stands.
 */
function locateByName(
  program: CompiledProgram,
  thrown: { readonly message: string },
  failure: ExceptionFailure,
): ExceptionFailure {
  if (program.map !== undefined) return failure;
  const property = /^cannot (?:read|set) property '([^']+)' of (?:undefined|null)$/.exec(thrown.message)?.[1];
  const name = /^([A-Za-z_$][\w$]*) is not defined$/.exec(thrown.message)?.[1];
  const pattern =
    property !== undefined && identifier.test(property)
      ? new RegExp(
          `(?:\\?\\.|\\.)\\s*${escapeDollars(property)}(?![\\w$])|\\[\\s*(['"\`])${escapeDollars(property)}\\1\\s*\\]`,
          'g',
        )
      : name !== undefined
        ? new RegExp(`(?<![\\w$.])${escapeDollars(name)}(?![\\w$])`, 'g')
        : undefined;
  if (pattern === undefined) return failure;
  const lines = program.code.split('\n');
  const places: Array<{ line: number; column: number }> = [];
  // The code's line L + 1 is the model's line L (the wrapper's one line first).
  for (let line = failure.line ?? 1; line <= program.lines && places.length <= namedPlaces; line += 1) {
    for (const match of (lines[line] ?? '').matchAll(pattern)) {
      places.push({ line, column: modelColumn(program.insertions, line, match.index) + 1 });
    }
  }
  if (places.length === 0 || places.length > namedPlaces) return failure;
  const described = failure.message.replace(/ \(line \d+, column \d+\)$/, '');
  const { line: _line, column: _column, ...rest } = failure;
  if (places.length === 1) {
    const [{ line, column }] = places as [{ line: number; column: number }];
    return { ...rest, message: `${described} (line ${line}, column ${column})`, line, column };
  }
  const listed = [...new Set(places.map((place) => place.line))];
  if (listed.length === 1) return { ...rest, message: `${described} (line ${listed[0]})`, line: listed[0]! };
  return { ...rest, message: `${described} (at one of lines ${listed.join(', ')})` };
}
