import { SourceMap } from 'node:module';
import type { CodeRunFailure, ExceptionFailure } from '@sluice/code-runtime';
import { compileInThread } from './compile-thread.js';
import { type Insertion, modelColumn } from './program-edits.js';
import { fastPathChars, prepareJavaScript } from './program-fast-path.js';
import { wrapperLines } from './program-wrapper.js';
import type { RunController } from './run-controller.js';

/** A program ready for a worker: JavaScript, and how its positions lead back to what the model wrote. */
export interface CompiledProgram {
  readonly code: string;
  /**
   * esbuild's source map back to the model's text. Absent when the types were blanked in place
   * (the common case): line L of `code` is then the model's line L − 1 (the wrapper's first line)
   * and every column is the model's, but for `insertions`.
   */
  readonly map?: string;
  /** Lines in the model's source; frames past it are the wrapper's. */
  readonly lines: number;
  /** Text normalisation inserted on the model's lines; the code's columns count it, the model's do not. */
  readonly insertions?: readonly Insertion[];
}

/** The outcome of compiling one program. */
export type CompileResult =
  | { readonly ok: true; readonly program: CompiledProgram }
  | { readonly ok: false; readonly failure: CodeRunFailure };

const cacheEntries = 256;

/** Settles once the process's compile thread has answered its first compile. */
let compileThreadWarm: Promise<void> | undefined;

/**
 * Compiles programs for one runtime: each is prepared (`prepareProgram`: normalised with the
 * TypeScript parser, its types blanked in place, or stripped by esbuild where blanking cannot do
 * it) in the process's compile thread, off the host's main thread, before any worker is involved;
 * plain JavaScript of at most `fastPathChars` that needs none of that (`prepareJavaScript`) is taken
 * here, without the thread. Results are cached by source text (least recently used first out), so
 * a program run again skips both.
 */
export class ProgramCompiler {
  readonly #cache = new Map<string, CompileResult>();

  /**
   * Starts the process's compile thread; resolves once it has answered its first compile. Cheap
   * once it has (the thread is shared by every runtime of the process). With `programs` (those
   * about to run), resolves at once without starting it when each is prepared here (see
   * {@link ProgramCompiler}) or already cached. Never rejects.
   */
  warm(programs?: readonly string[]): Promise<void> {
    if (programs?.every((source) => this.#preparedHere(source) !== undefined)) return Promise.resolve();
    // Plain JavaScript: it starts the thread without loading the parser, which a program may not need.
    compileThreadWarm ??= compileInThread('return 0').then(() => undefined);
    return compileThreadWarm;
  }

  /**
   * For a run that now holds its substrate: begins it (its wall clock starts here, compiling
   * included), compiles `source` under the run's signal, and when the program did not compile or
   * the run ended meanwhile, ends the run with the compile's failure and calls `giveBack` so the
   * substrate serves another run. Resolves with the program to execute, or `undefined`. Never rejects.
   */
  async compileFor(run: RunController, source: string, giveBack: () => void): Promise<CompiledProgram | undefined> {
    run.begin();
    const compiled = await this.compile(source, run.signal);
    if (!run.ended && compiled.ok) return compiled.program;
    giveBack();
    if (!compiled.ok) run.finish({ ok: false, failure: compiled.failure });
    return undefined;
  }

  /**
   * The program prepared, or why it was not. Pass the run's `signal`: when it aborts, the compile
   * is abandoned (the compile thread stops working on it, see `compileInThread`) and resolves as an
   * `abort` failure, which is not cached. Never rejects.
   */
  async compile(source: string, signal?: AbortSignal): Promise<CompileResult> {
    const here = this.#preparedHere(source);
    if (here !== undefined) return here;
    const result = await compileInThread(source, signal);
    if (!result.ok && result.failure.kind !== 'exception') return result;
    this.#remember(source, result);
    return result;
  }

  /** The cached result for `source`, or the fast path's (then cached), or `undefined` for the thread. */
  #preparedHere(source: string): CompileResult | undefined {
    const cached = this.#cache.get(source);
    if (cached !== undefined) {
      this.#cache.delete(source);
      this.#cache.set(source, cached);
      return cached;
    }
    const fast = source.length <= fastPathChars ? prepareJavaScript(source) : undefined;
    if (fast !== undefined) this.#remember(source, fast);
    return fast;
  }

  #remember(source: string, result: CompileResult): void {
    this.#cache.set(source, result);
    if (this.#cache.size > cacheEntries) this.#cache.delete(this.#cache.keys().next().value!);
  }
}

/** A thrown error as the prelude described it, untrusted. */
export interface ThrownDescription {
  readonly name?: string;
  readonly message: string;
  readonly stack?: string;
}

/**
 * A stack line that ends in a position outside the program: `at f (node:vm:149:12)`, `at [worker
 * eval]:144:29`, `at <input>:1:1`. The place before `:LINE:COLUMN` has a character other than a
 * digit, so a printed line such as `  at the office since 08:30:15` is not one.
 */
const substrateFrame = /^\s+at (?:.* \(?)?[^\s()]*[^\s\d():][^\s()]*:\d+:\d+\)?$/;

const framePattern = /^(\s*at (?:async )?)(?:(.*?) \()?program\.js:(\d+)(?::(\d+))?\)?$/;

/** A 1-based position in the model's own text. */
interface ModelPosition {
  readonly line: number;
  readonly column: number;
}

/**
 * Maps 1-based positions in `program.code` to the model's own, `undefined` for the wrapper's:
 * through the source map when esbuild stripped the program, by the wrapper's line alone when the
 * types were blanked in place. The source map is parsed on the first position asked for.
 */
function positionsOf(program: CompiledProgram): (line: number, column: number) => ModelPosition | undefined {
  let map: SourceMap | undefined;
  return (line, column) => {
    // The position in the wrapped program before any stripping: a 1-based line, a 0-based column.
    let wrapped = { line, column: Math.max(0, column - 1) };
    if (program.map !== undefined) {
      map ??= new SourceMap(JSON.parse(program.map));
      const entry = map.findEntry(line - 1, wrapped.column) as { originalLine?: number; originalColumn?: number };
      if (entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
      wrapped = { line: entry.originalLine + 1, column: entry.originalColumn };
    }
    const modelLine = wrapped.line - wrapperLines;
    if (modelLine < 1 || modelLine > program.lines) return undefined;
    return { line: modelLine, column: modelColumn(program.insertions, modelLine, wrapped.column) + 1 };
  };
}

/**
 * Turns an error the program threw into an `exception` failure: stack lines are mapped back to
 * the model's own source (`program.ts:line:column`) and only the program's frames are kept.
 */
export function describeException(program: CompiledProgram, thrown: ThrownDescription): ExceptionFailure {
  const locate = positionsOf(program);
  const head: string[] = [];
  const frames: string[] = [];
  let first: ModelPosition | undefined;
  const lines = (thrown.stack ?? '').split('\n');
  let inFrames = false;
  for (const text of lines) {
    if (/^\s*at /.test(text)) inFrames = true;
    if (!inFrames) {
      head.push(text);
      continue;
    }
    const match = framePattern.exec(text);
    if (match === null) continue;
    const position = locate(Number(match[3]), Number(match[4] ?? 1));
    if (position === undefined) continue;
    first ??= position;
    const where = `program.ts:${position.line}:${position.column}`;
    frames.push(match[2] ? `${match[1]}${match[2]} (${where})` : `${match[1]}${where}`);
  }
  // A compile error from V8 puts "program.js:LINE" on the first line instead of a frame.
  const compileLine = /^program\.js:(\d+)$/.exec(lines[0] ?? '');
  if (first === undefined && compileLine !== null) first = locate(Number(compileLine[1]), 1);
  const name = thrown.name;
  const described = name === undefined ? `Uncaught ${thrown.message}` : `${name}: ${thrown.message}`;
  const where = first === undefined ? '' : ` (line ${first.line}, column ${first.column})`;
  const stackHead = head.length > 0 && compileLine === null ? head.join('\n') : described;
  return {
    kind: 'exception',
    message: `${described}${networkHint(name, thrown.message)}${where}`,
    ...(name === undefined ? {} : { name }),
    ...(first === undefined ? {} : { line: first.line, column: first.column }),
    ...(thrown.stack === undefined ? {} : { stack: [stackHead, ...frames].join('\n') }),
  };
}

/** The web's network globals, which a run does not have (DESIGN.md: no ambient capability). */
const networkGlobals = /^(fetch|XMLHttpRequest|WebSocket|EventSource|navigator) is not defined$/;

/**
 * For a program that reached for the network itself (`fetch(url)`, as a script written for Node or
 * a browser does): the sentence saying a run has none and how it reaches the web. Empty otherwise.
 */
function networkHint(name: string | undefined, message: string): string {
  const match = name === 'ReferenceError' ? networkGlobals.exec(message) : null;
  if (match === null) return '';
  return `. A program has no network of its own: call one of the host's tools that fetches instead of ${match[1]} (sluice.searchTools('fetch') finds one, if there is any)`;
}

/**
 * Rewrites `program.js:LINE:COLUMN` positions in a line the program printed into the model's own
 * `program.ts` positions. Returns `undefined` for a stack line that points into the wrapper or the
 * substrate's own code rather than the program: that line is dropped.
 */
export function mapProgramPositions(program: CompiledProgram, line: string): string | undefined {
  // A frame of the substrate's own code (a file, `node:vm`, `[worker eval]`, QuickJS's `<input>`) says
  // nothing the program can use: dropped. A built-in's frame (`(native)`, `(<anonymous>)`) is kept.
  if (!line.includes('program.js:')) return substrateFrame.test(line) ? undefined : line;
  const locate = positionsOf(program);
  let unmapped = false;
  const mapped = line.replace(/program\.js:(\d+):(\d+)/g, (whole, row: string, column: string) => {
    const position = locate(Number(row), Number(column));
    if (position === undefined) {
      unmapped = true;
      return whole;
    }
    return `program.ts:${position.line}:${position.column}`;
  });
  return unmapped && /^\s*at /.test(line) ? undefined : mapped;
}
