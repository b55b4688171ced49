import { createRequire } from 'node:module';
import { compileFunction, Script } from 'node:vm';
import type * as TypeScriptModule from 'typescript';
import { parseDiagnostics, parseProgram } from './program-normalise.js';
import { programArrow } from './program-wrapper.js';

type TypeScript = typeof TypeScriptModule;
type Node = TypeScriptModule.Node;
type SourceFile = TypeScriptModule.SourceFile;

/** ts-blank-space's `blankSourceFile`: the tree's text with its types turned into spaces. */
export type BlankSourceFile = (file: SourceFile, onError?: (node: Node) => void) => string;

let loading: Promise<BlankSourceFile | undefined> | undefined;

/**
 * ts-blank-space's `blankSourceFile`, bound to `typescript`, the parser instance whose trees it is
 * given; `undefined` when it cannot be loaded (then esbuild strips every program). Loaded once per
 * thread, on the first call; `typescript` is read only once the load has come that far. Never
 * rejects.
 */
export function loadBlanker(typescript: () => TypeScript): Promise<BlankSourceFile | undefined> {
  // Importing ts-blank-space would have Node wrap the 9 MB CommonJS typescript.js as an ES module:
  // it compiles the file to detect its format, then lexes it for export names, two to three times
  // what loading the parser costs. Bundled (by the esbuild already here) with `typescript` left to
  // a require of our own, it costs milliseconds once esbuild's service runs, and shares the parser
  // the kit has loaded, so the syntax kinds it compares are always those of the tree it walks.
  loading ??= bundleBlanker().then(
    (code) => evaluateBlanker(code, typescript),
    () => undefined,
  );
  return loading;
}

async function bundleBlanker(): Promise<string> {
  const { build } = await import('esbuild');
  const entry = createRequire(import.meta.url).resolve('ts-blank-space');
  const output = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['typescript'],
    logLevel: 'silent',
  });
  const file = output.outputFiles[0];
  if (file === undefined) throw new Error('esbuild produced no bundle of ts-blank-space');
  return file.text;
}

function evaluateBlanker(code: string, typescript: () => TypeScript): BlankSourceFile | undefined {
  try {
    const parser = typescript();
    const module = { exports: {} as { blankSourceFile?: unknown } };
    const load = (name: string): unknown => {
      if (name === 'typescript') return parser;
      throw new Error(`ts-blank-space asked for ${name}, which the kit does not provide`);
    };
    compileFunction(code, ['require', 'module', 'exports'], { filename: 'ts-blank-space.cjs' })(
      load,
      module,
      module.exports,
    );
    const blank = module.exports.blankSourceFile;
    return typeof blank === 'function' ? (blank as BlankSourceFile) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Strips a normalised program's types by blanking them with spaces in place, so every line and
 * column stays where the model wrote it. `file` is the tree normalisation parsed; when
 * normalisation edited the text, the edited body is parsed again (cheaper than esbuild), unless
 * `blankWrapped` can blank it from that tree. Returns
 * `undefined` when esbuild must strip the program instead: syntax ts-blank-space cannot erase
 * (enum, namespace, parameter property, `<T>value`, `import x =`), syntax esbuild lowers for
 * Node 20 (decorators, `accessor`, `using`), text where a position could mean two places or
 * the two parsers could part (`<!--`, `-->`, a lone carriage return, U+2028, U+2029), an
 * `import(` in the output, or an early error V8 reports (esbuild's message and position are the
 * ones to give).
 */
export function blankProgram(
  ts: TypeScript,
  blank: BlankSourceFile,
  file: SourceFile,
  body: string,
  epilogue: string,
): string | undefined {
  if (ambiguousText.test(body)) return undefined;
  let tree = file;
  let blanked = file.text === body ? undefined : blankWrapped(ts, blank, file, body);
  if (file.text !== body && blanked === undefined) {
    try {
      tree = parseProgram(ts, body);
    } catch {
      return undefined;
    }
    if (parseDiagnostics(tree).length > 0) return undefined;
  }
  if (lowered.test(body) && needsLowering(ts, tree)) return undefined;
  try {
    // The first syntax it cannot erase ends the walk: the program goes to esbuild anyway.
    blanked ??= blank(tree, refuse);
  } catch {
    return undefined;
  }
  // Defence in depth: normalisation refused every import() the parser saw, and esbuild would have
  // turned one into a require() the context lacks. Nothing that reads as one reaches a worker raw.
  if (dynamicImport.test(blanked)) return undefined;
  try {
    // Compiled, never run: the lazily compiled arrow costs V8 a pre-parse, which finds every early error.
    new Script(programArrow(blanked, epilogue));
  } catch {
    return undefined;
  }
  return blanked;
}

/**
 * @internal The edited body blanked without parsing it again, where that provably gives what
 * the second parse would: normalisation's only edit wrapped the last statement's expression `E` as
 * `return (E)` or `return (E)()`, the statement before `E` ends in its own `;` or `}`, and
 * ts-blank-space, on the tree normalisation parsed, wrote only spaces. Then the parser reads every
 * token of the edited text as before: nothing before `E` was read past that `;` or `}` but to ask
 * whether `E`'s first token continues it (an operator, `else`, `finally`), which `return` never
 * does; and `E` parses the same between parentheses (no statement-only reading applies to it, and
 * what follows it, `)` now rather than `;` or the end, is no operator, `:` or `=>` either way). So
 * the edited text parses cleanly, with the same types, decorators, `accessor` and `using`, and
 * blanks the same: only the `;`, `(` and `)` that ts-blank-space writes depend on where a statement
 * ends. `undefined` when this does not hold; the body is then parsed again.
 */
export function blankWrapped(
  ts: TypeScript,
  blank: BlankSourceFile,
  file: SourceFile,
  body: string,
): string | undefined {
  const statements = file.statements;
  let index = statements.length - 1;
  while (index >= 0 && ts.isEmptyStatement(statements[index]!)) index -= 1;
  const last = statements[index];
  if (last === undefined || !ts.isExpressionStatement(last)) return undefined;
  const text = file.text;
  // `global` and a name on the next line is a TypeScript declaration; before `return`, an expression.
  const before = statements[index - 1];
  if (before !== undefined && !statementEnds.test(text.charAt(before.end - 1))) return undefined;
  const start = last.expression.getStart(file);
  const end = last.expression.end;
  const head = `${text.slice(0, start)}return (${text.slice(start, end)})`;
  const called = body === `${head}()${text.slice(end)}`;
  if (!called && body !== `${head}${text.slice(end)}`) return undefined;
  let blanked: string;
  try {
    blanked = blank(file, refuse);
  } catch {
    return undefined;
  }
  if (blanked.length !== text.length) return undefined;
  if (blanked !== text) {
    for (let offset = 0; offset < text.length; offset += 1) {
      const written = blanked.charCodeAt(offset);
      if (written !== text.charCodeAt(offset) && written !== 32) return undefined;
    }
  }
  return `${blanked.slice(0, start)}return (${blanked.slice(start, end)})${called ? '()' : ''}${blanked.slice(end)}`;
}

function refuse(): never {
  throw new Error('syntax ts-blank-space cannot erase');
}

/** The last character of a statement that ends in its own `;` or `}`. */
const statementEnds = /[;}]/;
/** HTML-like comments (V8 reads them, TypeScript does not) and line breaks that `\n` does not count. */
const ambiguousText = /<!--|-->|\r(?!\n)|[\u2028\u2029]/;
/** Words that may start syntax esbuild lowers for Node 20; only then is the tree walked. */
const lowered = /@|\baccessor\b|\busing\b/;
/** `import` followed by `(` or by a comment that could hide one. */
const dynamicImport = /\bimport\s*(?:\(|\/[*/])/;

/** Whether the program has decorators, `accessor` fields or `using` declarations. */
function needsLowering(ts: TypeScript, file: SourceFile): boolean {
  const stack: Node[] = [file];
  let found = false;
  const push = (child: Node): void => {
    stack.push(child);
  };
  while (stack.length > 0 && !found) {
    const node = stack.pop()!;
    if (
      ts.isDecorator(node) ||
      node.kind === ts.SyntaxKind.AccessorKeyword ||
      (ts.isVariableDeclarationList(node) && (node.flags & ts.NodeFlags.Using) !== 0)
    ) {
      found = true;
    }
    ts.forEachChild(node, push);
  }
  return found;
}
