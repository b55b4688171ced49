import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import type { ObjectNode, PropertyNode, TypeNode } from './schema-model.js';
import type { DefinitionRegistry } from './schema-registry.js';

/**
 * What a tool without an output schema is declared to resolve with. `unknown`: anything (the
 * host's tools return plain values). `tool-content`: MCP tool content as Sluice's MCP server hands
 * it over: one text item as a string, one image as its `ImageContent`, `""` for no content, and
 * anything else as the content list (`ToolContent`).
 */
export type UntypedResults = 'unknown' | 'tool-content';

/** The names the `tool-content` declarations take, allocated before any schema's own names. */
export const toolContentTypeNames = ['ToolContent', 'ContentItem', 'ImageContent'] as const;

/** One sentence on what untyped results are, as a comment in the declarations' language. */
export function toolContentNote(language: CodeRuntimeLanguage): string {
  const comment = language === 'python' ? '#' : '//';
  const lines = [
    'A tool without a declared result resolves with ToolContent: its one text item as a string, its one image',
    'as ImageContent, "" when it sent nothing, otherwise the content list. An error result rejects with its text,',
    'except that a tool with a declared result resolves with the value it sent along with the error.',
  ];
  return lines.map((line) => `${comment} ${line}`).join('\n');
}

/** Defines `ToolContent`, `ContentItem` and `ImageContent` in `registry`; returns the reference to `ToolContent`. */
export function defineToolContent(registry: DefinitionRegistry): TypeNode {
  const [toolContent, contentItem, imageContent] = toolContentTypeNames.map((name) =>
    registry.name(`#tool-content/${name}`, name),
  );
  const image: TypeNode = { kind: 'reference', name: imageContent! };
  registry.define(toolContent!, {
    kind: 'union',
    members: [string, image, { kind: 'array', items: { kind: 'reference', name: contentItem! } }],
  });
  registry.define(
    imageContent!,
    item('ImageContent', 'image', [field('data', string, 'Base64.'), field('mimeType', string)]),
  );
  registry.define(contentItem!, {
    kind: 'union',
    members: [
      item('TextContent', 'text', [field('text', string)]),
      image,
      item('AudioContent', 'audio', [field('data', string, 'Base64.'), field('mimeType', string)]),
      item('ResourceLink', 'resource_link', [
        field('uri', string),
        field('name', string),
        field('mimeType', string, undefined, true),
        field('description', string, undefined, true),
      ]),
      item('EmbeddedResource', 'resource', [
        field('resource', {
          kind: 'object',
          hint: 'ResourceContents',
          label: 'ResourceContents',
          properties: [
            field('uri', string),
            field('mimeType', string, undefined, true),
            field('text', string, undefined, true),
            field('blob', string, 'Base64.', true),
          ],
          additional: undefined,
        }),
      ]),
    ],
  });
  return { kind: 'reference', name: toolContent! };
}

const string: TypeNode = { kind: 'primitive', name: 'string' };

function field(name: string, type: TypeNode, doc?: string, optional = false): PropertyNode {
  return { name, type, optional, doc };
}

function item(hint: string, type: string, properties: readonly PropertyNode[]): ObjectNode {
  return {
    kind: 'object',
    hint,
    label: hint,
    properties: [field('type', { kind: 'literal', value: type }), ...properties],
    additional: undefined,
  };
}
