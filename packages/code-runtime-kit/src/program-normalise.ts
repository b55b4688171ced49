import type * as TypeScriptModule from 'typescript';
import { type Insertion, ProgramEdits } from './program-edits.js';
import { findFence } from './program-fence.js';
import { maxNesting, tooDeep } from './program-nesting.js';
import { type DeclaredFunction, referencedNames, surveyProgram } from './program-survey.js';
import { describeUnclosed, type Unclosed } from './program-unclosed.js';

type TypeScript = typeof TypeScriptModule;
type Node = TypeScriptModule.Node;
type Statement = TypeScriptModule.Statement;
type SourceFile = TypeScriptModule.SourceFile;

/** A program ready for the async wrapper, or the reason it was refused. */
export type Normalised =
  | {
      readonly kind: 'program';
      /** The model's text after the edits, line for line. */
      readonly body: string;
      /** Statements that go after the program, on the wrapper's own lines (`return main()`). */
      readonly epilogue: string;
      readonly insertions: readonly Insertion[];
      /** Set when the parser found a syntax error: what the program left open at its end. */
      readonly unclosed?: Unclosed;
    }
  | {
      readonly kind: 'refused';
      readonly message: string;
      /** Where the reason is, 1-based; absent when the parser could not say (a program nested too deep for it). */
      readonly line?: number;
      readonly column?: number;
    };

const nestingMessage = `The program nests more than ${maxNesting} levels deep (blocks, functions, brackets or calls inside one another), which is more than it may. Flatten it: use loops, arrays and helper functions instead of nesting this deep.`;

// Declared on the wrapper's lines only when the program has an `export default` to hand back.
const defaultName = 'sluice$default';

/**
 * Brings a program into the one shape the worker runs, the body of an async function, when it
 * has exactly one reading: a markdown fence around it is blanked; a program that is one function
 * expression is called; a program that only declares things and one function nobody calls has
 * that function called; `export default` is unwrapped (a function is called); without a
 * top-level `return`, the last expression statement's value is returned. Imports, what has two
 * readings and a program nested more than `maxNesting` levels deep are refused with a message
 * naming the fix. Lines never move and columns move only
 * where text is inserted (`insertions`), so positions still point at the model's text.
 */
export function normaliseProgram(ts: TypeScript, source: string): Normalised {
  return normaliseSource(ts, source).normalised;
}

/** What `normaliseSource` found: the program, and the tree it parsed when that parsed cleanly. */
export interface NormalisedSource {
  readonly normalised: Normalised;
  /** The parsed tree of the program before normalisation's edits (a fence already blanked); absent after a syntax error. */
  readonly file?: SourceFile;
}

/** `normaliseProgram`, handing back the tree it parsed too, so the strip can reuse it. */
export function normaliseSource(ts: TypeScript, source: string): NormalisedSource {
  const fence = findFence(source);
  if (fence.kind === 'foreign') {
    return {
      normalised: {
        kind: 'refused',
        message: `The program is fenced as ${fence.language || 'unnamed'} code, and this runtime runs TypeScript or JavaScript. Send the program itself (a fence marked ts or js is fine).`,
        line: fence.line,
        column: 1,
      },
    };
  }
  const fenced = new ProgramEdits(source);
  if (fence.kind === 'fence') for (const [start, end] of fence.ranges) fenced.blank(start, end);
  const text = fenced.apply().text;
  let file: SourceFile;
  try {
    file = parseProgram(ts, text);
  } catch {
    // The parser recurses: a program nested thousands deep overflows its stack. Not handed to
    // esbuild, whose cost grows faster than the depth (see maxNesting).
    return { normalised: { kind: 'refused', message: nestingMessage } };
  }
  const deep = tooDeep(ts, file);
  if (deep !== undefined) {
    const position = file.getLineAndCharacterOfPosition(deep.getStart(file));
    return {
      normalised: { kind: 'refused', message: nestingMessage, line: position.line + 1, column: position.character + 1 },
    };
  }
  const diagnostics = parseDiagnostics(file);
  if (diagnostics.length > 0) {
    const unclosed = describeUnclosed(ts, file, diagnostics);
    return {
      normalised: { kind: 'program', body: text, epilogue: '', insertions: [], ...(unclosed ? { unclosed } : {}) },
    };
  }
  return { normalised: normaliseTree(ts, file), file };
}

/** Parses a program's text as TypeScript, the way normalisation does (no JSDoc, no parent pointers). */
export function parseProgram(ts: TypeScript, text: string): SourceFile {
  const options = { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone };
  return ts.createSourceFile('program.ts', text, options, false, ts.ScriptKind.TS);
}

/** The syntax errors the parser found; the list is internal to TypeScript, hence the cast. */
export function parseDiagnostics(file: SourceFile): readonly TypeScriptModule.DiagnosticWithLocation[] {
  return (file as { parseDiagnostics?: readonly TypeScriptModule.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
}

/** Normalises a program that parsed without errors. */
function normaliseTree(ts: TypeScript, file: SourceFile): Normalised {
  const text = file.text;
  const where = (node: Node): { line: number; column: number } => {
    const position = file.getLineAndCharacterOfPosition(node.getStart(file));
    return { line: position.line + 1, column: position.character + 1 };
  };
  const refuse = (node: Node, message: string): Normalised => ({ kind: 'refused', message, ...where(node) });

  const survey = surveyProgram(ts, file);
  const imported = survey.imported;
  if (imported !== undefined) return refuse(imported.node, importMessage(imported.written));

  const edits = new ProgramEdits(text);
  for (const node of survey.erased) edits.blank(node.getStart(file), node.end);
  const defaults = file.statements.filter((statement) => isDefaultExport(ts, statement));
  const returned = survey.topLevelReturn;
  const second = defaults[1];
  if (second !== undefined) {
    return refuse(
      second,
      `The program has two \`export default\`s (lines ${where(defaults[0]!).line} and ${where(second).line}), so it has two results. Keep one, or end with \`return\` of what the run should hand back.`,
    );
  }
  let epilogue = '';
  const exported = defaults[0];
  const meaningful = file.statements.filter((statement) => !isTypeOnly(ts, statement, survey.erased));
  const last = meaningful.at(-1);
  if (exported !== undefined) {
    if (returned !== undefined) {
      return refuse(
        exported,
        `The program both returns a value (\`return\` at line ${where(returned).line}) and has an \`export default\` (line ${where(exported).line}): two results. Keep one of them.`,
      );
    }
    const unwrapped = unwrapDefault(ts, file, exported, edits, survey.functions);
    if (typeof unwrapped !== 'string') return refuse(unwrapped.node, unwrapped.message);
    epilogue = unwrapped;
  } else if (returned === undefined && last !== undefined && ts.isExpressionStatement(last)) {
    const expression = last.expression;
    const called = callable(ts, expression, survey.functions);
    if (called !== undefined) {
      const problem = parameterProblem(file, called);
      if (problem !== undefined) return refuse(expression, problem);
    }
    edits.insert(expression.getStart(file), 'return (');
    edits.insert(expression.end, called === undefined ? ')' : ')()');
  } else if (returned === undefined && meaningful.every((statement) => isDeclaration(ts, statement))) {
    const referenced = referencedNames(ts, file, survey.functions);
    const uncalled = survey.functions.filter((entry) => !referenced.has(entry.name ?? ''));
    const only = uncalled[0];
    if (only !== undefined && uncalled.length === 1) {
      const problem = parameterProblem(file, only);
      if (problem !== undefined) return refuse(only.node, problem);
      epilogue = `return ${only.name}();`;
    } else if (uncalled.length > 1) {
      const names = uncalled.map((entry) => `\`${entry.name}\` (line ${where(entry.node).line})`);
      const calls = uncalled.map((entry) => `\`return await ${entry.name}()\``);
      return refuse(
        uncalled[0]!.node,
        `The program declares ${names.join(' and ')} and calls none of them, so it could mean either. End it with ${calls.join(' or ')}.`,
      );
    }
  }
  // Last, so that at one offset a `return (` inserted above comes before the replacement.
  for (const { node, text: replacement } of survey.servers) {
    edits.blank(node.getStart(file), node.end);
    if (replacement !== '') edits.insert(node.getStart(file), replacement);
  }
  const edited = edits.apply();
  return { kind: 'program', body: edited.text, epilogue, insertions: edited.insertions };
}

function importMessage(written: string): string {
  return `Imports are not available: \`${written}\` cannot load anything in this runtime, and neither can import() or require(). A program has the standard built-ins, console, setTimeout and the host functions this run grants: call those instead (\`await tools.name(input)\`, as the tool list names them).`;
}

function isDefaultExport(ts: TypeScript, statement: Statement): boolean {
  if (ts.isExportAssignment(statement)) return true;
  if (!ts.isFunctionDeclaration(statement) && !ts.isClassDeclaration(statement)) return false;
  const modifiers = statement.modifiers ?? [];
  return modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
}

/** Hands `export default` back as the program's result; returns the epilogue or a refusal. */
function unwrapDefault(
  ts: TypeScript,
  file: SourceFile,
  statement: Statement,
  edits: ProgramEdits,
  functions: readonly DeclaredFunction[],
): string | { node: Node; message: string } {
  if (ts.isExportAssignment(statement)) {
    const expression = statement.expression;
    edits.blank(statement.getStart(file), expression.getStart(file));
    edits.insert(expression.getStart(file), `const ${defaultName} = (`);
    edits.insert(expression.end, ')');
    const called = callable(ts, expression, functions);
    if (called === undefined) return `return ${defaultName};`;
    const problem = parameterProblem(file, called);
    return problem === undefined ? `return ${defaultName}();` : { node: expression, message: problem };
  }
  const declaration = statement as TypeScriptModule.FunctionDeclaration | TypeScriptModule.ClassDeclaration;
  const modifiers = declaration.modifiers ?? [];
  for (const modifier of modifiers) {
    if (modifier.kind === ts.SyntaxKind.ExportKeyword || modifier.kind === ts.SyntaxKind.DefaultKeyword) {
      edits.blank(modifier.getStart(file), modifier.end);
    }
  }
  const name = declaration.name?.text;
  if (name === undefined) {
    // `export default function () {}` has no name to call it by: make it an expression.
    edits.insert(declaration.getStart(file), `const ${defaultName} = `);
  }
  const callee = name ?? defaultName;
  if (ts.isClassDeclaration(declaration)) return `return ${callee};`;
  const problem = parameterProblem(file, { name: callee, node: declaration, parameters: declaration.parameters });
  return problem === undefined ? `return ${callee}();` : { node: declaration, message: problem };
}

/** The function an expression is, when calling it is the only useful reading. */
function callable(
  ts: TypeScript,
  expression: Node,
  functions: readonly DeclaredFunction[],
): DeclaredFunction | undefined {
  let inner = expression;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  if (ts.isArrowFunction(inner) || ts.isFunctionExpression(inner)) {
    return { name: inner.name?.text, node: inner, parameters: inner.parameters };
  }
  if (ts.isIdentifier(inner)) return functions.find((entry) => entry.name === inner.text);
  return undefined;
}

/** Why a function cannot be called with no arguments, or `undefined` when it can. */
function parameterProblem(file: SourceFile, declared: DeclaredFunction): string | undefined {
  const required = declared.parameters.filter(
    (parameter) =>
      parameter.initializer === undefined && parameter.questionToken === undefined && !parameter.dotDotDotToken,
  );
  if (required.length === 0) return undefined;
  const names = required.map((parameter) => `\`${parameter.name.getText(file)}\``).join(', ');
  const subject = declared.name === undefined ? 'The program is a function that' : `\`${declared.name}\``;
  return `${subject} takes ${names}, and nothing in the run passes ${required.length === 1 ? 'it' : 'them'}: the program would be called with no arguments. Write the program as \`async () => { ... }\` (or plain statements) that calls the host functions it needs, or call the function yourself with its arguments and \`return\` the result.`;
}

/** A statement that only declares (imports of servers, types, functions, classes, variables) and runs nothing else. */
function isDeclaration(ts: TypeScript, statement: Statement): boolean {
  return (
    ts.isImportDeclaration(statement) ||
    ts.isFunctionDeclaration(statement) ||
    ts.isClassDeclaration(statement) ||
    ts.isVariableStatement(statement) ||
    ts.isEnumDeclaration(statement) ||
    ts.isModuleDeclaration(statement) ||
    ts.isEmptyStatement(statement)
  );
}

/** A statement esbuild erases: types, `declare`, erased imports and exports, `;`. */
function isTypeOnly(ts: TypeScript, statement: Statement, erased: ReadonlySet<Node>): boolean {
  if (erased.has(statement) || ts.isEmptyStatement(statement)) return true;
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return true;
  const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
  return modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DeclareKeyword);
}
