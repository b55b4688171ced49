import type * as TypeScriptModule from 'typescript';

type TypeScript = typeof TypeScriptModule;

/** What a program left open at its end, and where that began (1-based). */
export interface Unclosed {
  /** Reads in a sentence: "the block `{`", "the template literal", "the comment `/*`". */
  readonly what: string;
  readonly line?: number;
  readonly column?: number;
}

// TypeScript's diagnostic codes: "'}' expected" (with "…to match the '{' token here" attached),
// "Unterminated template literal", "'*/' expected".
const expectedCode = 1005;
const matchCode = 1007;
const templateCode = 1160;
const commentCode = 1010;

const openers: Record<string, string> = {
  '{': 'the block or object `{`',
  '(': 'the parenthesis `(`',
  '[': 'the bracket `[`',
};

/**
 * Reads the parser's diagnostics for the one that says the program ended with something still
 * open, and says what and where it began, so the error can be reported at the program's last
 * line instead of at the wrapper's `)` after it.
 */
export function describeUnclosed(
  ts: TypeScript,
  file: TypeScriptModule.SourceFile,
  diagnostics: readonly TypeScriptModule.DiagnosticWithLocation[],
): Unclosed | undefined {
  const text = file.text;
  const end = text.trimEnd().length;
  const at = (offset: number): { line: number; column: number } => {
    const position = file.getLineAndCharacterOfPosition(offset);
    return { line: position.line + 1, column: position.character + 1 };
  };
  for (const diagnostic of diagnostics) {
    if (diagnostic.start < end) continue;
    if (diagnostic.code === expectedCode) {
      const match = diagnostic.relatedInformation?.find((related) => related.code === matchCode);
      if (match?.start !== undefined) {
        const opener = text[match.start] ?? '';
        return { what: openers[opener] ?? `\`${opener}\``, ...at(match.start) };
      }
      const open = openAtEnd(ts, file, end);
      if (open !== undefined) return { what: open.what, ...at(open.offset) };
      const expected = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      const closer = expected.length > 1 ? expected[1] : undefined;
      const opener = closer === ')' ? '(' : closer === ']' ? '[' : '{';
      return { what: closer === '}' ? 'a block, object or `${`' : (openers[opener] ?? 'a bracket') };
    }
    if (diagnostic.code === templateCode) {
      const start = unterminatedTemplate(ts, file, end);
      return { what: 'the template literal', ...(start === undefined ? {} : at(start)) };
    }
    if (diagnostic.code === commentCode) {
      const comments = ts.getLeadingCommentRanges(text, file.endOfFileToken.pos) ?? [];
      const comment = comments.at(-1);
      return { what: 'the comment `/*`', ...(comment === undefined ? {} : at(comment.pos)) };
    }
  }
  return undefined;
}

/** Where the unterminated template literal starts: its opening backtick. */
function unterminatedTemplate(ts: TypeScript, file: TypeScriptModule.SourceFile, end: number): number | undefined {
  const stack: TypeScriptModule.Node[] = [file];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (ts.isTemplateExpression(node) && node.templateSpans.at(-1)?.literal.isUnterminated) {
      return node.getStart(file);
    }
    if (ts.isNoSubstitutionTemplateLiteral(node) && node.isUnterminated) return node.getStart(file);
    ts.forEachChild(node, (child) => {
      if (child.end >= end) stack.push(child);
    });
  }
  return undefined;
}

/**
 * The innermost call, parenthesis or template substitution that runs to the end of the program,
 * for the diagnostics that do not name their opener; its opening character's offset.
 */
function openAtEnd(
  ts: TypeScript,
  file: TypeScriptModule.SourceFile,
  end: number,
): { what: string; offset: number } | undefined {
  let found: { what: string; offset: number } | undefined;
  const stack: TypeScriptModule.Node[] = [file];
  while (stack.length > 0) {
    const node = stack.pop()!;
    // Open means its closing token is missing: the node ends where its last part ends.
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && node.arguments !== undefined) {
      if (node.end === node.arguments.end) found = { what: openers['(']!, offset: node.arguments.pos - 1 };
    } else if (ts.isParenthesizedExpression(node)) {
      if (node.end === node.expression.end) found = { what: openers['(']!, offset: node.getStart(file) };
    } else if (ts.isTemplateSpan(node)) {
      if (node.literal.end === node.literal.pos) {
        found = { what: 'the template substitution `${`', offset: node.expression.pos - 2 };
      }
    }
    ts.forEachChild(node, (child) => {
      if (child.end >= end) stack.push(child);
    });
  }
  return found;
}
