import { createRequire } from 'node:module';
import { compileFunction, Script } from 'node:vm';
import { build } from 'esbuild';
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
 * normalisation edited the text, the edited body is parsed again (cheaper than esbuild). Returns
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
  if (file.text !== body) {
    try {
      tree = parseProgram(ts, body);
    } catch {
      return undefined;
    }
    if (parseDiagnostics(tree).length > 0) return undefined;
  }
  if (lowered.test(body) && needsLowering(ts, tree)) return undefined;
  let blanked: string;
  try {
    // The first syntax it cannot erase ends the walk: the program goes to esbuild anyway.
    blanked = blank(tree, refuse);
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

function refuse(): never {
  throw new Error('syntax ts-blank-space cannot erase');
}

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
