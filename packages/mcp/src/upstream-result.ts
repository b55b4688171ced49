import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '@sluice/code-runtime';

/** What {@link toolResultValue} needs to know about the tool that answered. */
export interface ToolResultOptions {
  /** Whether the tool declares an `outputSchema`: its result is then its `structuredContent`. Default `false`. */
  readonly outputSchema?: boolean;
}

/**
 * What a program receives from an upstream tool call. A tool with an output schema gives its
 * `structuredContent`, also when the result is an error (`isError`) that carries one. Any other
 * tool gives its content: one text item as a string, one image as its image content object,
 * nothing as `""`, and anything else as the content list. An error result without a value
 * throws, so the program's call rejects with the tool's text.
 */
export function toolResultValue(result: CallToolResult, path: string, options: ToolResultOptions = {}): JsonValue {
  const content = Array.isArray(result.content) ? result.content : [];
  if (options.outputSchema === true && result.structuredContent !== undefined) {
    return result.structuredContent as JsonValue;
  }
  if (result.isError === true) {
    const text = content
      .map((item) => (item.type === 'text' ? item.text : `[${item.type}]`))
      .join('\n')
      .trim();
    throw new Error(`${path} returned an error: ${text === '' ? '(no message)' : text}`);
  }
  if (content.length === 0) return '';
  const [only] = content;
  if (content.length === 1 && only?.type === 'text') return only.text;
  // Every content item arrived as parsed JSON, so it is JSON again.
  if (content.length === 1 && only?.type === 'image') return only as unknown as JsonValue;
  return content as unknown as JsonValue;
}
