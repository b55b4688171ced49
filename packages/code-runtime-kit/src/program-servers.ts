import { javascriptReservedWords, pythonReservedWords } from '@sluice/code-runtime';
import type * as TypeScriptModule from 'typescript';

type TypeScript = typeof TypeScriptModule;
type Node = TypeScriptModule.Node;
type SourceFile = TypeScriptModule.SourceFile;

/**
 * What a `./servers/…` module path names, in the file tree of Anthropic's "code execution with
 * MCP" (`./servers/<server>/<tool>.ts`, an `index.ts` per server): a server's namespace, or one of its tools.
 */
export interface ServerModule {
  /** The server as the program wrote it (`google-drive`). */
  readonly server: string;
  /** The namespace its tools are bound in: the server's name as tool names map to namespaces (`google_drive`). */
  readonly namespace: string;
  /** For a tool's own module (`./servers/google-drive/getDocument.ts`), the tool's name. */
  readonly tool?: string;
}

const prefix = './servers/';
const extension = /\.(?:[cm]?[jt]s|tsx|jsx)$/;

/**
 * The server (and tool) a module path names: `./servers/<server>`, with an optional `/`, `/index`
 * or `/index.ts`, is the server's namespace; `./servers/<server>/<tool>` (`.ts`, `.js` …) is one
 * tool. Anything else, `undefined`.
 */
export function serverModule(specifier: string): ServerModule | undefined {
  if (!specifier.startsWith(prefix)) return undefined;
  const parts = specifier.slice(prefix.length).split('/');
  if (parts.at(-1) === '') parts.pop();
  const server = parts[0];
  if (server === undefined || server === '' || parts.length > 2 || extension.test(server)) return undefined;
  const namespace = bindingIdentifier(server);
  const file = parts[1]?.replace(extension, '');
  if (file === undefined || file === 'index') return { server, namespace };
  if (file === '') return undefined;
  return { server, namespace, tool: bindingIdentifier(file, 'function') };
}

/**
 * A name as tool names become binding names (`@sluice/permissions`' `toolBindingName`): every run
 * of characters other than ASCII letters, digits and `_` becomes one `_`, a leading digit gets a `_`
 * before it, and a namespace that is a reserved word of JavaScript or Python gets a `_` after it (a
 * function keeps it: `./servers/lab/delete` is `lab.delete`).
 */
export function bindingIdentifier(text: string, role: 'namespace' | 'function' = 'namespace'): string {
  let part = text.replace(/[^A-Za-z0-9_]+/g, '_');
  if (part === '') return '_';
  if (/^[0-9]/.test(part)) part = `_${part}`;
  if (role === 'namespace' && (javascriptReservedWords.has(part) || pythonReservedWords.has(part))) part = `${part}_`;
  return part;
}

/**
 * An expression, on one line, whose value is the namespace a server module names, read from the
 * run's globals where the provider binds namespaces; a name that is no namespace throws a
 * ReferenceError naming the server, the namespace it would be, and the fix.
 */
export function serverLookup(module: ServerModule): string {
  const message = `./servers/${module.server} is not a server this run can call (it would be the namespace ${module.namespace}). Import a namespace the tool list names, as ./servers/<namespace>, or call its tools directly: ${module.namespace}.<tool>(...).`;
  return `((found) => typeof found === "object" && found !== null ? found : (() => { throw new ReferenceError(${JSON.stringify(message)}); })())(globalThis[${JSON.stringify(module.namespace)}])`;
}

/** A `./servers/…` import, `import()` or `require()` in a program, and the text that replaces it. */
export interface ServerImport {
  readonly node: Node;
  /** What replaces the node: declarations for an import statement, an expression for `import()` or `require()`. */
  readonly text: string;
}

/**
 * The replacement of a server import, or `undefined` when `node` is not one: an import
 * declaration becomes `const` declarations (`import * as gdrive from './servers/google-drive'` →
 * `const gdrive = <namespace>`; named imports are destructured from it; a default import is the
 * namespace, or the tool of a tool's module); `import('./servers/…')` becomes a promise of the
 * namespace and `require('./servers/…')` the namespace.
 */
export function serverImport(ts: TypeScript, file: SourceFile, node: Node): ServerImport | undefined {
  if (ts.isImportDeclaration(node)) {
    if (!ts.isStringLiteral(node.moduleSpecifier)) return undefined;
    const module = serverModule(node.moduleSpecifier.text);
    if (module === undefined) return undefined;
    return { node, text: declarations(ts, file, node.importClause, module) };
  }
  if (!ts.isCallExpression(node) || node.arguments.length !== 1) return undefined;
  const only = node.arguments[0]!;
  if (!ts.isStringLiteralLike(only)) return undefined;
  const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
  const required = ts.isIdentifier(node.expression) && node.expression.text === 'require';
  if (!dynamic && !required) return undefined;
  const module = serverModule(only.text);
  if (module === undefined) return undefined;
  const lookup = serverLookup(module);
  return { node, text: dynamic ? `Promise.resolve().then(() => ${lookup})` : `(${lookup})` };
}

function declarations(
  ts: TypeScript,
  file: SourceFile,
  clause: TypeScriptModule.ImportClause | undefined,
  module: ServerModule,
): string {
  if (clause === undefined || clause.isTypeOnly) return '';
  const lookup = serverLookup(module);
  const declared: string[] = [];
  if (clause.name !== undefined) {
    declared.push(
      `${clause.name.text} = ${lookup}${module.tool === undefined ? '' : `[${JSON.stringify(module.tool)}]`}`,
    );
  }
  const bindings = clause.namedBindings;
  if (bindings !== undefined && ts.isNamespaceImport(bindings)) declared.push(`${bindings.name.text} = ${lookup}`);
  if (bindings !== undefined && ts.isNamedImports(bindings)) {
    const names = bindings.elements
      .filter((element) => !element.isTypeOnly)
      .map((element) => {
        const local = element.name.text;
        const imported = element.propertyName?.getText(file);
        return imported === undefined ? local : `${imported}: ${local}`;
      });
    if (names.length > 0) declared.push(`{ ${names.join(', ')} } = ${lookup}`);
  }
  return declared.length === 0 ? '' : `const ${declared.join(', ')};`;
}
