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

/**
 * Every `await` as a word. As the script's stand-in (see {@link prepareJavaScript}) each becomes
 * `void ` (as long): a prefix operator with the same operand, precedence and reading of what follows
 * as the `await` of the program's async function (a `/` after either starts a regular expression, and
 * neither ends a statement at the end of a line), which a script has not. Inside a nested function
 * that is not async, `await` is a name; what follows it reads the same but for a `/` (see
 * {@link awaitBeforeSlash}). In a string, comment or
 * regular expression the text changes but not its tokens; after `.`, as a property or method name,
 * `void` is a name as `await` is.
 */
const awaitWord = /\bawait\b/g;

/**
 * An `await` before a `/` (or a comment), which the stand-in would not read alike: inside a function
 * that is not async, `await` is a name, and the `/` after it a division, where after `void ` it starts
 * a regular expression, which could swallow the brace that ends the function.
 */
const awaitBeforeSlash = /\bawait\s*\//;

/**
 * UTF-16 code units of plain JavaScript the host's main thread takes by the fast path (`ProgramCompiler`):
 * its two V8 compiles then take well under a millisecond. Longer programs go to the compile thread
 * (`compileInThread`), where the same fast path runs first.
 */
export const fastPathChars = 16 * 1024;

/**
 * A program that is plain JavaScript and already in the shape the worker runs, prepared without the
 * TypeScript parser or esbuild: exactly what `prepareProgram` returns for it (the text, unchanged,
 * in the async wrapper; no source map). `undefined` sends it the parser's way. Taken only when V8
 * compiles it as the body of an async function, it has a `return` outside any function (so
 * normalisation changes nothing: no last expression to return, no function to call), no fence,
 * nothing {@link needsParser}, a conditional beside an arrow or {@link awaitBeforeSlash}, and fewer openers in all than the
 * nesting limit (so the limit holds here too). The top-level `return` is found by V8 compiling the
 * text as a script, where `return` is not allowed outside a function, with {@link awaitWord}'s
 * stand-in for `await` (which a script reads as a name): its first error is then that `return`,
 * and the text before it reads as the same tokens and statements in the script as in the async
 * function. Compiled, never run; needs no flag, so it runs in any thread.
 */
export function prepareJavaScript(source: string): CompileResult | undefined {
  if (needsParser.test(source) || (source.includes('=>') && conditional.test(source))) return undefined;
  if (awaitBeforeSlash.test(source)) return undefined;
  if (findFence(source).kind !== 'none' || !opensFewLevels(source)) return undefined;
  try {
    new vm.Script(programArrow(source, ''));
  } catch {
    return undefined;
  }
  try {
    new vm.Script(source.replace(awaitWord, 'void '));
    // A script without a `return` outside a function: normalisation may return its last expression.
    return undefined;
  } catch (error) {
    // V8 stops at the first error: this one means a `return` outside any function, and the text
    // before it is valid script code, so nothing earlier was read differently.
    if (!(error instanceof SyntaxError) || error.message !== 'Illegal return statement') return undefined;
  }
  return { ok: true, program: { code: wrapProgram(source, ''), lines: source.split('\n').length } };
}
