import { createRequire } from 'node:module';
import { type Message, stop, transform } from 'esbuild';
import type * as TypeScriptModule from 'typescript';
import type { CompileResult } from './program-compile.js';
import { modelColumn } from './program-edits.js';
import { type Normalised, normaliseProgram } from './program-normalise.js';
import type { Unclosed } from './program-unclosed.js';

// The program is the body of an async function; the wrapper takes one line of its own, so the
// model's line N is line N + 1 of what esbuild sees, and the source map undoes that. What
// normalisation adds after the program (`return main();`) goes on the wrapper's last lines.
const prefix = '(async () => {\n';

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
 * Prepares one program: normalises its shape (`normaliseProgram`: a fence, a function to call,
 * `export default`, the last expression as the value; imports refused) with the TypeScript parser,
 * then strips TypeScript with esbuild. A syntax error or a refusal becomes an `exception` failure
 * with the program's own line and column. Runs in the compile thread (see compile-thread.ts), never
 * on the host's main thread.
 */
export async function prepareProgram(source: string): Promise<CompileResult> {
  // The first compile loads the parser, which takes a while. esbuild works in a process of its
  // own, so it strips the program as written meanwhile; kept if normalisation changes nothing.
  // Later compiles go one after the other: a second strip would cost more than the parse.
  const early = typescript === undefined ? strip(wrap(source, '')) : undefined;
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
    unchanged && stripped !== undefined ? stripped : await strip(wrap(normalised.body, normalised.epilogue)),
  );
}

async function strip(text: string, retry = true): Promise<Stripped> {
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
    return strip(text, false);
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
