import { createRequire } from 'node:module';
import type * as TypeScriptModule from 'typescript';
import { blankProgram, loadBlanker } from './program-blank.js';
import type { CompileResult } from './program-compile.js';
import { modelColumn } from './program-edits.js';
import { esbuildWork, type Stripped } from './program-esbuild.js';
import { prepareJavaScript } from './program-fast-path.js';
import { type Normalised, type NormalisedSource, normaliseSource } from './program-normalise.js';
import type { Unclosed } from './program-unclosed.js';
import { wrapProgram } from './program-wrapper.js';

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
 * Loads the TypeScript parser and starts bundling ts-blank-space, the fixed cost of the first compile
 * that needs them (the same for every program), so what follows is the program's own work. Never
 * throws: a parser that cannot load is reported by {@link prepareWithParser}.
 */
export function loadParser(): void {
  try {
    // It never rejects; prepareWithParser awaits the same promise.
    loadBlanker(loadTypeScript).catch(() => {});
    loadTypeScript();
  } catch {
    // prepareWithParser says so, as the compile's failure.
  }
}

/**
 * Prepares one program. Plain JavaScript already in shape is taken as it is (`prepareJavaScript`),
 * with the same result. Anything else: normalises its shape (`normaliseProgram`: a fence, a function to call,
 * `export default`, the last expression as the value; imports refused) with the TypeScript parser,
 * then strips TypeScript: in place with ts-blank-space on the tree the parser built, so positions
 * need no source map, or with esbuild (and its source map) for what blanking cannot do
 * (`blankProgram` says what). A syntax error or a refusal becomes an `exception` failure with the
 * program's own line and column (none when the parser could not say where: a program nested too
 * deep for it). Runs in the compile thread (see compile-thread.ts), never on the
 * host's main thread.
 */
export async function prepareProgram(source: string): Promise<CompileResult> {
  // Plain JavaScript already in shape needs neither the parser nor esbuild, nor their load.
  return prepareJavaScript(source) ?? prepareWithParser(source);
}

/** @internal {@link prepareProgram} without the fast path: the parser's way for every program. Exported for tests. */
export async function prepareWithParser(source: string): Promise<CompileResult> {
  // On the first compile this starts bundling ts-blank-space in esbuild's process while the parser
  // loads here; later compiles find it ready.
  const blanker = loadBlanker(loadTypeScript);
  let prepared: NormalisedSource | undefined;
  try {
    prepared = normaliseSource(loadTypeScript(), source);
  } catch {
    prepared = undefined;
  }
  if (prepared === undefined) {
    return {
      ok: false,
      failure: {
        kind: 'substrate-exit',
        message:
          'The TypeScript parser could not be loaded, so the program could not be prepared; nothing ran. Check that the typescript package is installed.',
      },
    };
  }
  const { normalised, file } = prepared;
  if (normalised.kind === 'refused') {
    const { message, line, column } = normalised;
    if (line === undefined || column === undefined) {
      return {
        ok: false,
        failure: { kind: 'exception', name: 'SyntaxError', message: `SyntaxError: ${message} Nothing ran.` },
      };
    }
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
  const { body, epilogue, insertions } = normalised;
  let blanked: string | undefined;
  if (file !== undefined) {
    const blank = await blanker;
    if (blank !== undefined) blanked = blankProgram(loadTypeScript(), blank, file, body, epilogue);
  }
  if (blanked !== undefined) {
    const lines = source.split('\n').length;
    return {
      ok: true,
      program: { code: wrapProgram(blanked, epilogue), lines, ...(insertions.length > 0 ? { insertions } : {}) },
    };
  }
  return describeStripped(source, normalised, await esbuildWork().strip(wrapProgram(body, epilogue)));
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
