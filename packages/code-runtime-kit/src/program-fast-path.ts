import * as vm from 'node:vm';
import type { CompileResult } from './program-compile.js';
import { findFence } from './program-fence.js';
import { maxNesting } from './program-nesting.js';
import { programArrow, wrapProgram } from './program-wrapper.js';

/**
 * What sends a program to the parser: `<` (type arguments, assertions and `<!--` read differently by
 * TypeScript), `@` (decorators), the words of TypeScript-only syntax and of modules (a modifier or a
 * declaration keyword that JavaScript would read as a name), and text the two parsers may split
 * differently (`-->`, a lone carriage return, U+2028, U+2029). Matches in strings and comments
 * count too: a false match only costs the parser.
 */
const needsParser =
  /[<@]|-->|\r(?!\n)|[\u2028\u2029]|\b(?:import|export|require|as|satisfies|declare|abstract|public|private|protected|readonly|override|accessor|using|enum|interface|namespace|module|type|global|implements|asserts|keyof|infer|is|unique)\b/;
/** A conditional `?` (not `?.` or `??`): beside an arrow, TypeScript may read `(a): b => c` as an arrow with a return type. */
const conditional = /\?(?![.?])/;

/** Everything that can open a nesting level: brackets, braces, template substitutions and arrows. */
const opener = /[([{]|=>/g;

/**
 * Whether `source` opens fewer levels in all than a program may nest: then it cannot nest past
 * `maxNesting` however they are placed, and needs no tree to tell. Counting every opener, not the
 * depth, needs no tokenizer (a bracket in a string only counts once more), so a deep program cannot
 * pass; a long one goes the parser's way, where the nesting rule is applied on the tree.
 */
function opensFewLevels(source: string): boolean {
  let opened = 0;
  opener.lastIndex = 0;
  while (opener.exec(source) !== null) {
    opened += 1;
    if (opened > maxNesting) return false;
  }
  return true;
}

type ModuleConstructor = new (source: string) => unknown;

/**
 * A program that is plain JavaScript and already in the shape the worker runs, prepared without the
 * TypeScript parser or esbuild: exactly what `prepareProgram` returns for it (the text, unchanged,
 * in the async wrapper; no source map). `undefined` sends it the parser's way. Taken only when V8
 * compiles it as the body of an async function, it has a `return` outside any function (so
 * normalisation changes nothing: no last expression to return, no function to call), no fence,
 * nothing {@link needsParser} or a conditional beside an arrow, and fewer openers in all than the
 * nesting limit (so the limit holds here too). The top-level `return` is found
 * by V8 parsing the text as a module, where `await` is allowed and `return` is not; that needs
 * `vm.SourceTextModule` (`--experimental-vm-modules`, which the compile thread is started with).
 * Compiled, never run.
 */
export function prepareJavaScript(source: string): CompileResult | undefined {
  const SourceTextModule = (vm as { SourceTextModule?: ModuleConstructor }).SourceTextModule;
  if (SourceTextModule === undefined) return undefined;
  if (needsParser.test(source) || (source.includes('=>') && conditional.test(source))) return undefined;
  if (findFence(source).kind !== 'none' || !opensFewLevels(source)) return undefined;
  try {
    new vm.Script(programArrow(source, ''));
  } catch {
    return undefined;
  }
  try {
    new SourceTextModule(source);
    // A module without a top-level `return`: normalisation may return its last expression.
    return undefined;
  } catch (error) {
    // V8 stops at the first error: this one means a `return` outside any function, and the text
    // before it is valid module code, so nothing earlier was read differently.
    if (!(error instanceof SyntaxError) || error.message !== 'Illegal return statement') return undefined;
  }
  return { ok: true, program: { code: wrapProgram(source, ''), lines: source.split('\n').length } };
}
