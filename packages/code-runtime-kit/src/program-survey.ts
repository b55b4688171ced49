import type * as TypeScriptModule from 'typescript';
import { type ServerImport, serverImport } from './program-servers.js';

type TypeScript = typeof TypeScriptModule;
type Node = TypeScriptModule.Node;
type SourceFile = TypeScriptModule.SourceFile;

/** A function the program declares, or a function expression it may be called as. */
export interface DeclaredFunction {
  readonly name: string | undefined;
  readonly node: Node;
  readonly parameters: TypeScriptModule.NodeArray<TypeScriptModule.ParameterDeclaration>;
}

/** What normalisation needs to know about a parsed program's top level. */
export interface ProgramSurvey {
  /** The first `return` outside any function. */
  readonly topLevelReturn: Node | undefined;
  /** The first import (declaration, `import()`, `import.meta`, `export … from`, `require('x')`) and how it reads, other than of a server. */
  readonly imported: { readonly node: Node; readonly written: string } | undefined;
  /** Imports, `import()` and `require()` of `./servers/…` modules, with the text that replaces each. */
  readonly servers: readonly ServerImport[];
  /** Top-level `function name() {}` and `const name = () => {}` declarations. */
  readonly functions: readonly DeclaredFunction[];
  /** Nodes to blank: type-only imports, `export { … }` lists, the `export` of named exports. */
  readonly erased: ReadonlySet<Node>;
}

/**
 * Collects what the rules of `normaliseProgram` look at. Every walk is iterative (a program may
 * nest deeper than the stack allows a recursive one), and each is done only when its answer can
 * matter: the walk for imports only when the text says `import`, `export` or `require`, and none enters a function
 * looking for a top-level `return`.
 */
export function surveyProgram(ts: TypeScript, file: SourceFile): ProgramSurvey {
  const functions: DeclaredFunction[] = [];
  const erased = new Set<Node>();
  for (const statement of file.statements) {
    const declared = declaredFunction(ts, statement);
    if (declared !== undefined) functions.push(declared);
    if (ts.isImportDeclaration(statement) && isTypeOnlyImport(ts, statement)) erased.add(statement);
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier === undefined) erased.add(statement);
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    const isDefault = modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
    for (const modifier of modifiers) {
      if (modifier.kind === ts.SyntaxKind.ExportKeyword && !isDefault) erased.add(modifier);
    }
  }
  let topLevelReturn: Node | undefined;
  walk(ts, file.statements, (node) => {
    if (ts.isReturnStatement(node)) {
      if (topLevelReturn === undefined || node.pos < topLevelReturn.pos) topLevelReturn = node;
      return false;
    }
    return !ts.isFunctionLike(node) && !ts.isClassLike(node);
  });
  const text = file.text;
  const loads = text.includes('import') || text.includes('export') || text.includes('require');
  const servers: ServerImport[] = [];
  const imported = loads ? findImport(ts, file, erased, servers) : undefined;
  return { topLevelReturn, imported, servers, functions, erased };
}

function findImport(
  ts: TypeScript,
  file: SourceFile,
  erased: ReadonlySet<Node>,
  servers: ServerImport[],
): { node: Node; written: string } | undefined {
  let imported: { node: Node; written: string } | undefined;
  const note = (node: Node, written: string): void => {
    if (imported === undefined || node.pos < imported.node.pos) imported = { node, written };
  };
  walk(ts, file.statements, (node) => {
    const server = erased.has(node) ? undefined : serverImport(ts, file, node);
    if (server !== undefined) {
      servers.push(server);
      // Its argument is a string: nothing inside it to look at.
      return false;
    }
    if (ts.isImportDeclaration(node) && !erased.has(node)) {
      note(node, `import … from ${node.moduleSpecifier.getText(file)}`);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      note(node, `import … = require(${node.moduleReference.expression.getText(file)})`);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
      note(node, `export … from ${node.moduleSpecifier.getText(file)}`);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const specifier = node.arguments[0];
      note(node, `import(${specifier === undefined ? '' : specifier.getText(file)})`);
    } else if (isRequire(ts, node)) {
      note(node, `require(${node.arguments[0]!.getText(file)})`);
    } else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) {
      note(node, 'import.meta');
    }
    return true;
  });
  return imported;
}

/**
 * The names a program uses anywhere, except declared names and a top-level function's uses of
 * its own name (recursion does not call it).
 */
export function referencedNames(ts: TypeScript, file: SourceFile, functions: readonly DeclaredFunction[]): Set<string> {
  const referenced = new Set<string>();
  const stack: Array<readonly [Node, string | undefined]> = [];
  for (const statement of file.statements) {
    stack.push([statement, functions.find((entry) => entry.node === statement)?.name]);
  }
  while (stack.length > 0) {
    const [node, owner] = stack.pop()!;
    if (ts.isIdentifier(node) && node.text !== owner) referenced.add(node.text);
    // A declaration's own name is not a use of it; `{ main }` shorthand is.
    const name = ts.isShorthandPropertyAssignment(node) ? undefined : (node as { name?: Node }).name;
    ts.forEachChild(node, (child) => {
      if (child !== name) stack.push([child, owner]);
    });
  }
  return referenced;
}

/** Visits nodes depth first without recursion; `visit` returns whether to enter a node's children. */
function walk(ts: TypeScript, roots: readonly Node[], visit: (node: Node) => boolean): void {
  const stack: Node[] = [...roots];
  const push = (child: Node): void => {
    stack.push(child);
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (visit(node)) ts.forEachChild(node, push);
  }
}

function declaredFunction(ts: TypeScript, statement: Node): DeclaredFunction | undefined {
  if (ts.isFunctionDeclaration(statement)) {
    if (statement.name === undefined || statement.body === undefined) return undefined;
    return { name: statement.name.text, node: statement, parameters: statement.parameters };
  }
  if (!ts.isVariableStatement(statement)) return undefined;
  const declarations = statement.declarationList.declarations;
  const only = declarations[0];
  if (declarations.length !== 1 || only === undefined || !ts.isIdentifier(only.name)) return undefined;
  let initializer = only.initializer;
  while (initializer !== undefined && ts.isParenthesizedExpression(initializer)) initializer = initializer.expression;
  if (initializer === undefined || !(ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) {
    return undefined;
  }
  return { name: only.name.text, node: statement, parameters: initializer.parameters };
}

/** `import type …`, or an import whose every name is a type: esbuild drops it. */
function isTypeOnlyImport(ts: TypeScript, statement: TypeScriptModule.ImportDeclaration): boolean {
  const clause = statement.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** `require('x')`: CommonJS loading, which the context has no function for. */
function isRequire(ts: TypeScript, node: Node): node is TypeScriptModule.CallExpression {
  if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression) || node.expression.text !== 'require') {
    return false;
  }
  const only = node.arguments[0];
  return node.arguments.length === 1 && only !== undefined && ts.isStringLiteralLike(only);
}
