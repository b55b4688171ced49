import { createRequire, SourceMap } from 'node:module';
import type { CodeRunFailure, ExceptionFailure } from '@sluice/code-runtime';
import { type Message, stop, transform } from 'esbuild';
import type * as TypeScriptModule from 'typescript';
import { type Insertion, modelColumn } from './program-edits.js';
import { type Normalised, normaliseProgram } from './program-normalise.js';
import type { Unclosed } from './program-unclosed.js';

/** A program ready for a worker: JavaScript plus the source map back to what the model wrote. */
export interface CompiledProgram {
  readonly code: string;
  readonly map: string;
  /** Lines in the model's source; frames past it are the wrapper's. */
  readonly lines: number;
  /** Text normalisation inserted on the model's lines; the map's columns count it, the model's do not. */
  readonly insertions?: readonly Insertion[];
}

/** The outcome of compiling one program. */
export type CompileResult =
  | { readonly ok: true; readonly program: CompiledProgram }
  | { readonly ok: false; readonly failure: CodeRunFailure };

// The program is the body of an async function; the wrapper takes one line of its own, so the
// model's line N is line N + 1 of what esbuild sees, and the source map undoes that. What
// normalisation adds after the program (`return main();`) goes on the wrapper's last lines.
const prefix = '(async () => {\n';
const cacheEntries = 256;

let typescript: typeof TypeScriptModule | undefined;

/**
 * The TypeScript parser, loaded on the first compile (about half a second, once per process).
 * Through `require`: importing the CommonJS file as ESM first scans all of its 9 MB for export
 * names, which doubles the cost.
 */
function loadTypeScript(): typeof TypeScriptModule {
  typescript ??= createRequire(import.meta.url)('typescript') as typeof TypeScriptModule;
  return typescript;
}

/**
 * Normalises the program's shape (`normaliseProgram`: a fence, a function to call, `export
 * default`, the last expression as the value; imports refused) with the TypeScript parser, then
 * strips TypeScript with esbuild, on the host, before any worker is involved: a syntax error or a
 * refusal becomes an `exception` failure with the program's own line and column. Results are
 * cached by source text (least recently used first out), so a program run again skips both.
 */
export class ProgramCompiler {
  readonly #cache = new Map<string, CompileResult>();

  async compile(source: string): Promise<CompileResult> {
    const cached = this.#cache.get(source);
    if (cached !== undefined) {
      this.#cache.delete(source);
      this.#cache.set(source, cached);
      return cached;
    }
    const result = await this.#prepare(source);
    if (!result.ok && result.failure.kind !== 'exception') return result;
    this.#cache.set(source, result);
    if (this.#cache.size > cacheEntries) this.#cache.delete(this.#cache.keys().next().value!);
    return result;
  }

  async #prepare(source: string): Promise<CompileResult> {
    // The first compile loads the parser, which takes a while. esbuild works in a process of its
    // own, so it strips the program as written meanwhile; kept if normalisation changes nothing.
    // Later compiles go one after the other: a second strip would cost more than the parse.
    const early = typescript === undefined ? this.#strip(wrap(source, '')) : undefined;
    let normalised: Normalised | undefined;
    try {
      normalised = normaliseProgram(loadTypeScript(), source);
    } catch {
      normalised = undefined;
    }
    const stripped = early === undefined ? undefined : await early;
    if (normalised === undefined) {
      return {
        ok: false,
        failure: {
          kind: 'substrate-exit',
          message:
            'The TypeScript parser could not be loaded, so the program could not be prepared; nothing ran. Check that the typescript package is installed.',
        },
      };
    }
    if (normalised.kind === 'refused') {
      const { message, line, column } = normalised;
      return {
        ok: false,
        failure: {
          kind: 'exception',
          name: 'SyntaxError',
          message: `SyntaxError: ${message} (line ${line}, column ${column}). Nothing ran.`,
          line,
          column,
          stack: `SyntaxError: ${message}\n    at program.ts:${line}:${column}`,
        },
      };
    }
    const unchanged = normalised.body === source && normalised.epilogue === '';
    return describeStripped(
      source,
      normalised,
      unchanged && stripped !== undefined ? stripped : await this.#strip(wrap(normalised.body, normalised.epilogue)),
    );
  }

  async #strip(text: string, retry = true): Promise<Stripped> {
    try {
      const output = await transform(text, {
        loader: 'ts',
        sourcemap: 'external',
        sourcefile: 'program.ts',
        target: 'node20',
        supported: { 'dynamic-import': false },
        logLevel: 'silent',
      });
      return { kind: 'code', code: output.code, map: output.map };
    } catch (error) {
      const first = (error as { errors?: Message[] }).errors?.[0];
      if (first !== undefined) return { kind: 'error', message: first };
      // Not the program's fault: esbuild's service process died (killed, out of memory). A
      // stopped service restarts on the next call, so try once more before giving up.
      if (!retry) return { kind: 'stopped' };
      await stop();
      return this.#strip(text, false);
    }
  }
}

/** What esbuild made of a wrapped program. */
type Stripped =
  | { readonly kind: 'code'; readonly code: string; readonly map: string }
  | { readonly kind: 'error'; readonly message: Message }
  | { readonly kind: 'stopped' };

/** The wrapper around a (normalised) program: its line N is the wrapper's line N + 1. */
function wrap(body: string, epilogue: string): string {
  return epilogue === '' ? `${prefix}${body}\n})()` : `${prefix}${body}\n;${epilogue}\n})()`;
}

function describeStripped(
  source: string,
  normalised: Extract<Normalised, { kind: 'program' }>,
  stripped: Stripped,
): CompileResult {
  const lines = source.split('\n').length;
  if (stripped.kind === 'code') {
    const { insertions } = normalised;
    return {
      ok: true,
      program: { code: stripped.code, map: stripped.map, lines, ...(insertions.length > 0 ? { insertions } : {}) },
    };
  }
  if (stripped.kind === 'stopped') {
    return {
      ok: false,
      failure: {
        kind: 'substrate-exit',
        message:
          'The TypeScript compiler (esbuild) stopped working, so the program could not be prepared; nothing ran. Run it again.',
      },
    };
  }
  const location = stripped.message.location;
  let line = location ? Math.max(1, location.line - 1) : undefined;
  let column = location ? modelColumn(normalised.insertions, location.line - 1, location.column) + 1 : undefined;
  let text = stripped.message.text;
  // Past the program's last line, in the wrapper's `})()`: the program ended with something
  // open. Say what, at the program's own last line, never naming a `)` the model did not write.
  if (line !== undefined && line > lines) {
    ({ line, column } = lastLine(normalised.body));
    text = endMessage(normalised.unclosed);
  }
  const where = line === undefined ? '' : ` (line ${line}, column ${column})`;
  return {
    ok: false,
    failure: {
      kind: 'exception',
      name: 'SyntaxError',
      message: `SyntaxError: ${text}${where}. Nothing ran; fix the program and run it again.`,
      ...(line === undefined
        ? {}
        : { line, column, stack: `SyntaxError: ${text}\n    at program.ts:${line}:${column}` }),
    },
  };
}

/** The last line with code on it (a blanked fence is not code), and the column just past its end. */
function lastLine(body: string): { line: number; column: number } {
  const rows = body.split('\n');
  let index = rows.length - 1;
  while (index > 0 && rows[index]!.trim() === '') index -= 1;
  return { line: index + 1, column: rows[index]!.trimEnd().length + 1 };
}

function endMessage(unclosed: Unclosed | undefined): string {
  if (unclosed === undefined) {
    return 'The program ends before something it opened is closed (a block, parenthesis, bracket, string, template or comment)';
  }
  const start = unclosed.line === undefined ? '' : ` that starts at line ${unclosed.line}, column ${unclosed.column}`;
  return `The program ends before ${unclosed.what}${start} is closed`;
}

/** A thrown error as the prelude described it, untrusted. */
export interface ThrownDescription {
  readonly name?: string;
  readonly message: string;
  readonly stack?: string;
}

const framePattern = /^(\s*at (?:async )?)(?:(.*?) \()?program\.js:(\d+)(?::(\d+))?\)?$/;

/**
 * Turns an error the program threw into an `exception` failure: stack lines are mapped back to
 * the model's own source (`program.ts:line:column`) and only the program's frames are kept.
 */
export function describeException(program: CompiledProgram, thrown: ThrownDescription): ExceptionFailure {
  let map: SourceMap | undefined;
  const locate = (line: number, column: number): { line: number; column: number } | undefined => {
    map ??= new SourceMap(JSON.parse(program.map));
    const entry = map.findEntry(line - 1, Math.max(0, column - 1)) as {
      originalLine?: number;
      originalColumn?: number;
    };
    const { originalLine, originalColumn } = entry;
    if (originalLine === undefined || originalColumn === undefined) return undefined;
    if (originalLine < 1 || originalLine > program.lines) return undefined;
    return { line: originalLine, column: modelColumn(program.insertions, originalLine, originalColumn) + 1 };
  };
  const head: string[] = [];
  const frames: string[] = [];
  let first: { line: number; column: number } | undefined;
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
    message: `${described}${where}`,
    ...(name === undefined ? {} : { name }),
    ...(first === undefined ? {} : { line: first.line, column: first.column }),
    ...(thrown.stack === undefined ? {} : { stack: [stackHead, ...frames].join('\n') }),
  };
}

/**
 * Rewrites `program.js:LINE:COLUMN` positions in a line the program printed into the model's own
 * `program.ts` positions. Returns `undefined` for a stack line that points into the wrapper rather
 * than the program: that line is dropped.
 */
export function mapProgramPositions(program: CompiledProgram, line: string): string | undefined {
  if (!line.includes('program.js:')) return line;
  let map: SourceMap | undefined;
  let unmapped = false;
  const mapped = line.replace(/program\.js:(\d+):(\d+)/g, (whole, row: string, column: string) => {
    map ??= new SourceMap(JSON.parse(program.map));
    const entry = map.findEntry(Number(row) - 1, Math.max(0, Number(column) - 1)) as {
      originalLine?: number;
      originalColumn?: number;
    };
    const { originalLine, originalColumn } = entry;
    if (
      originalLine === undefined ||
      originalColumn === undefined ||
      originalLine < 1 ||
      originalLine > program.lines
    ) {
      unmapped = true;
      return whole;
    }
    return `program.ts:${originalLine}:${modelColumn(program.insertions, originalLine, originalColumn) + 1}`;
  });
  return unmapped && /^\s*at /.test(line) ? undefined : mapped;
}
