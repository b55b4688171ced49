// Every promise the host side starts has an owner (STYLE.md, "Patterns for hostile input"): it is
// awaited, returned, stored, or given a rejection path. This check reads the sources with the
// TypeScript compiler and flags a promise that is dropped without one:
//   - an expression statement whose value is a promise (`run.result.then(done);`, `start();`),
//   - `void <promise>` anywhere (`void run.result.then(done)`),
//   - a function returning a promise passed where a function returning void is expected
//     (`socket.on('data', async () => ...)`, `setTimeout(async () => ...)`),
// unless the promise is `x.catch(...)` or `x.then(onFulfilled, onRejected)`.
// Biome's nursery `noFloatingPromises` accepts `void promise`, the very pattern that hid the bug.
// `tsx scripts/check-promises.ts [root] [package...]` prints one line per finding and exits 1 when there are any.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** One promise without a rejection path. */
export interface PromiseFinding {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
}

/**
 * Packages left out for now, with why; every other folder under `packages/` is checked, so a new
 * provider is checked from its first commit. `tsx scripts/check-promises.ts . <folder>` lists what
 * is left to fix in one of them.
 */
export const uncheckedPackages: Readonly<Record<string, string>> = {
  bench: 'benchmarks and anchors, not host paths, maintained apart',
};

/** The folders under `packages/` of the workspace at `root` that the check reads. */
export function checkedPackages(root: string): string[] {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !Object.hasOwn(uncheckedPackages, entry.name))
    .map((entry) => entry.name)
    .sort();
}

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  resolveJsonModule: true,
};

// Declaration files (the lib, @types/node, dependencies' types) parsed once per process and shared
// by every program made here, as a language service shares them: parsing them is most of a small check.
const declarations = new Map<string, ts.SourceFile | undefined>();

function compilerHost(): ts.CompilerHost {
  const host = ts.createCompilerHost(compilerOptions);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!fileName.endsWith('.d.ts')) return read(fileName, languageVersion, onError, shouldCreate);
    if (!declarations.has(fileName)) declarations.set(fileName, read(fileName, languageVersion, onError, shouldCreate));
    return declarations.get(fileName);
  };
  return host;
}

/** The non-test TypeScript sources below `directory` (tests, fixtures and the CLI's demo programs are left out). */
export function sourceFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  const files: string[] = [];
  const pending = [directory];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!['__fixtures__', 'node_modules', 'dist', 'demo'].includes(entry.name)) pending.push(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(path);
      }
    }
  }
  return files.sort();
}

/** Every dropped promise without a rejection path in `files`, typed as one program. */
export function findUnownedPromises(files: readonly string[], root = process.cwd()): PromiseFinding[] {
  // A package's own ambient declarations (`declare module 'guest-bundle:*'`) sit beside its sources.
  const ambient = [...new Set(files.map((file) => dirname(file)))].flatMap((directory) =>
    readdirSync(directory)
      .filter((name) => name.endsWith('.d.ts'))
      .map((name) => join(directory, name)),
  );
  const program = ts.createProgram({
    rootNames: [...files, ...ambient],
    options: compilerOptions,
    host: compilerHost(),
  });
  const checker = program.getTypeChecker();
  const findings: PromiseFinding[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) continue;
    const report = (node: ts.Node) => {
      if (waived(source, node)) return;
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      findings.push({ file: relative(root, file), line: line + 1, text: node.getText(source).split('\n')[0]! });
    };
    // A module that does not resolve types its values as `any`, which no check can see through: say so.
    for (const diagnostic of program.getSemanticDiagnostics(source)) {
      if (!unresolvedModuleCodes.has(diagnostic.code) || diagnostic.start === undefined) continue;
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start);
      const text = `cannot be checked: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')} (build the workspace first)`;
      findings.push({ file: relative(root, file), line: line + 1, text });
    }
    const visit = (node: ts.Node) => {
      if (ts.isExpressionStatement(node)) {
        const expression = unwrap(node.expression);
        if (!ts.isVoidExpression(expression) && dropsPromise(checker, expression)) report(node);
      } else if (ts.isVoidExpression(node) && dropsPromise(checker, unwrap(node.expression))) {
        report(node);
      } else if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && misusedCallback(checker, node)) {
        report(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

/**
 * Whether the statement holding `node` is preceded by a `// check-promises: owned <why>` comment: for
 * the rare promise whose rejection path the checker cannot see (a captured `then` called through
 * `Reflect.apply`, say). The reason is required.
 */
function waived(source: ts.SourceFile, node: ts.Node): boolean {
  let statement: ts.Node = node;
  while (!ts.isStatement(statement) && statement.parent !== undefined) statement = statement.parent;
  const comments = ts.getLeadingCommentRanges(source.text, statement.getFullStart()) ?? [];
  return comments.some((range) => /check-promises: owned \S/.test(source.text.slice(range.pos, range.end)));
}

/** Cannot find module; could not find a declaration file for module. */
const unresolvedModuleCodes = new Set([2307, 7016]);

function unwrap(expression: ts.Expression): ts.Expression {
  let current = expression;
  while (ts.isParenthesizedExpression(current)) current = current.expression;
  return current;
}

/** Whether `expression` is a promise that nothing handles a rejection of. */
function dropsPromise(checker: ts.TypeChecker, expression: ts.Expression): boolean {
  if (ts.isAwaitExpression(expression) || isAssignment(expression) || hasRejectionPath(expression)) return false;
  return isThenable(checker, checker.getTypeAtLocation(expression));
}

/**
 * A function returning a promise, passed where a function returning `void` is expected (an event
 * listener, a timer, a callback): whoever calls it drops the promise.
 */
function misusedCallback(checker: ts.TypeChecker, node: ts.ArrowFunction | ts.FunctionExpression): boolean {
  const signature = checker.getSignatureFromDeclaration(node);
  if (signature === undefined || !isThenable(checker, checker.getReturnTypeOfSignature(signature))) return false;
  const expected = checker.getContextualType(node);
  if (expected === undefined) return false;
  const signatures = expected.getNonNullableType().getCallSignatures();
  return (
    signatures.length > 0 &&
    signatures.every((candidate) => (checker.getReturnTypeOfSignature(candidate).flags & ts.TypeFlags.Void) !== 0)
  );
}

/** `x = promise`, `x ??= promise`: stored, so whoever reads `x` owns it. */
function isAssignment(expression: ts.Expression): boolean {
  if (!ts.isBinaryExpression(expression)) return false;
  const operator = expression.operatorToken.kind;
  return operator >= ts.SyntaxKind.FirstAssignment && operator <= ts.SyntaxKind.LastAssignment;
}

function hasRejectionPath(expression: ts.Expression): boolean {
  if (!ts.isCallExpression(expression) || !ts.isPropertyAccessExpression(expression.expression)) return false;
  const method = expression.expression.name.text;
  return method === 'catch' || (method === 'then' && expression.arguments.length >= 2);
}

function isThenable(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some((member) => isThenable(checker, member));
  const then = checker.getPropertyOfType(type, 'then');
  if (then === undefined) return false;
  const declaration = then.valueDeclaration ?? then.declarations?.[0];
  if (declaration === undefined) return false;
  return checker.getTypeOfSymbolAtLocation(then, declaration).getCallSignatures().length > 0;
}

/** The findings for the checked packages of the workspace at `root`. */
export function checkPromises(root: string, packages: readonly string[] = checkedPackages(root)): PromiseFinding[] {
  const files = packages.flatMap((folder) => sourceFiles(join(root, 'packages', folder, 'src')));
  return findUnownedPromises(files, root);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [root = process.cwd(), ...packages] = process.argv.slice(2);
  const findings = checkPromises(root, packages.length > 0 ? packages : checkedPackages(root));
  for (const finding of findings) {
    console.error(`${finding.file}:${finding.line}: a promise without a rejection path: ${finding.text}`);
  }
  process.exitCode = findings.length > 0 ? 1 : 0;
}
