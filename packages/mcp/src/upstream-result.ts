import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '@sluice/code-runtime';

/**
 * What a program receives from an upstream tool call: its `structuredContent` when it sent one;
 * otherwise the text when the content is a single text item, the texts as an array when it is
 * several, `null` when there is none, and the content items themselves when any is not text (an
 * image, a resource). A result
 * flagged `isError` becomes an error in the program carrying the tool's text.
 */
export function toolResultValue(result: CallToolResult, path: string): JsonValue {
  const content = Array.isArray(result.content) ? result.content : [];
  if (result.isError === true) {
    const text = content
      .map((item) => (item.type === 'text' ? item.text : `[${item.type}]`))
      .join('\n')
      .trim();
    throw new Error(`${path} returned an error: ${text === '' ? '(no message)' : text}`);
  }
  if (result.structuredContent !== undefined) return result.structuredContent as JsonValue;
  if (content.every((item) => item.type === 'text')) {
    const texts = content.map((item) => (item.type === 'text' ? item.text : ''));
    if (texts.length === 0) return null;
    return texts.length === 1 ? texts[0]! : texts;
  }
  // Every content item arrived as parsed JSON, so it is JSON again.
  return content as unknown as JsonValue;
}
