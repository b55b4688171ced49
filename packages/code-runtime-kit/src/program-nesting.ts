import type * as TypeScriptModule from 'typescript';

type TypeScript = typeof TypeScriptModule;
type Node = TypeScriptModule.Node;
type SourceFile = TypeScriptModule.SourceFile;

/**
 * How deep a program may nest. Past it, preparation costs grow faster than the text: esbuild,
 * which strips what blanking cannot, renames nested scopes and indents nested blocks in time and
 * output quadratic or worse in the depth (2 000 nested `a=>` took it 86 s), and the parser and
 * blanker recurse until the stack overflows. serde_json stops at 128 levels, CPython's parser at
 * 200 nested brackets; no program a model writes comes near.
 */
export const maxNesting = 256;

/**
 * The first node that opens level `maxNesting + 1`, `undefined` when the program stays within
 * it. A level is a pair of brackets (a block, a class body, an object, an array, parentheses, a
 * call's or `new`'s arguments, an index, a template's `${}`) or an arrow function's expression
 * body, counted where the model wrote them: `a.b().c()` is one level, `if (x) { … }` one, `a=>b=>c`
 * two. Chains that do not nest in the text (`else if`, `+`, `?:`, method calls) do not count.
 * Iterative, so any depth the parser produced is measured.
 */
export function tooDeep(ts: TypeScript, file: SourceFile): Node | undefined {
  const kinds = bracketed(ts);
  const nodes: Node[] = [file];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    // A level: brackets around (some of) the node's children, or an arrow's expression body.
    const opens = kinds.has(node.kind) || (ts.isArrowFunction(node) && !ts.isBlock(node.body));
    if (opens && depth + 1 > maxNesting) return node;
    ts.forEachChild(node, (child) => {
      nodes.push(child);
      depths.push(opens && inside(ts, node, child) ? depth + 1 : depth);
    });
  }
  return undefined;
}

/** The kinds of node with brackets around their children; built once per parser instance. */
const bracketKinds = new WeakMap<TypeScript, ReadonlySet<TypeScriptModule.SyntaxKind>>();

function bracketed(ts: TypeScript): ReadonlySet<TypeScriptModule.SyntaxKind> {
  let kinds = bracketKinds.get(ts);
  if (kinds === undefined) {
    const { SyntaxKind } = ts;
    kinds = new Set([
      SyntaxKind.Block,
      SyntaxKind.ModuleBlock,
      SyntaxKind.CaseBlock,
      SyntaxKind.ClassDeclaration,
      SyntaxKind.ClassExpression,
      SyntaxKind.InterfaceDeclaration,
      SyntaxKind.EnumDeclaration,
      SyntaxKind.TypeLiteral,
      SyntaxKind.MappedType,
      SyntaxKind.TupleType,
      SyntaxKind.ParenthesizedType,
      SyntaxKind.ObjectLiteralExpression,
      SyntaxKind.ArrayLiteralExpression,
      SyntaxKind.ObjectBindingPattern,
      SyntaxKind.ArrayBindingPattern,
      SyntaxKind.ParenthesizedExpression,
      SyntaxKind.CallExpression,
      SyntaxKind.NewExpression,
      SyntaxKind.ElementAccessExpression,
      SyntaxKind.TemplateSpan,
      SyntaxKind.TemplateLiteralTypeSpan,
    ]);
    bracketKinds.set(ts, kinds);
  }
  return kinds;
}

/** Whether `child` is inside the level `node` opens: not a callee, an indexed object or an arrow's parameter. */
function inside(ts: TypeScript, node: Node, child: Node): boolean {
  if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isElementAccessExpression(node)) {
    return child !== node.expression;
  }
  if (ts.isArrowFunction(node)) return child === node.body;
  return true;
}
