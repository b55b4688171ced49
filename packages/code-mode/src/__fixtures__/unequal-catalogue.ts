// Catalogues of unequal servers, as one MCP setup connects them: a 220-tool `backoffice` beside the
// reference filesystem (14 tools) and memory (9 tools) servers, named as their MCP clients name
// them (`mcp__<server>__<tool>`). Deterministic: the same call gives the same tools.
import type { DeclaredTool } from '../declarations-entry.js';

type Schema = Record<string, unknown>;

const text = (description: string): Schema => ({ type: 'string', description });
const object = (properties: Record<string, Schema>, required: readonly string[] = []): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const verbs = [
  ['get', 'Get one %s by id, with every field.'],
  ['list', 'List %ss, newest first, a page at a time.'],
  ['create', 'Create a %s.'],
  ['update', 'Change fields of a %s.'],
  ['delete', 'Delete a %s for good.'],
  ['search', 'Search %ss by words in their fields.'],
  ['archive', 'Archive a %s; it stays readable.'],
  ['export', 'Export %ss as CSV.'],
  ['count', 'Count %ss matching a filter.'],
  ['restore', 'Restore an archived %s.'],
] as const;

const resources = [
  'customer', 'invoice', 'order', 'refund', 'ticket', 'shipment', 'product', 'coupon', 'report', 'user', 'warehouse',
  'supplier', 'contract', 'payment', 'subscription', 'discount', 'return', 'review', 'employee', 'campaign', 'lead', 'quote',
]; // biome-ignore format: a word list

/** 220 tools: ten verbs on 22 resources of a back office. */
export function backofficeTools(): DeclaredTool[] {
  return resources.flatMap((resource) =>
    verbs.map(([verb, description]): DeclaredTool => {
      const id = { [`${resource}_id`]: text(`The ${resource} id.`) };
      const input =
        verb === 'list' || verb === 'export'
          ? object({ cursor: text('From the previous page.'), limit: { type: 'integer', minimum: 1, maximum: 100 } })
          : verb === 'search' || verb === 'count'
            ? object({ query: text('Words to look for.'), status: { enum: ['open', 'closed', 'any'] } }, ['query'])
            : verb === 'create'
              ? object({ name: text(`The ${resource}'s name.`), notes: text('Free text.') }, ['name'])
              : verb === 'update'
                ? object({ ...id, fields: { type: 'object', additionalProperties: { type: 'string' } } }, [
                    `${resource}_id`,
                    'fields',
                  ])
                : object(id, [`${resource}_id`]);
      return {
        name: `mcp__backoffice__${verb}_${resource}`,
        description: description.replace('%s', resource),
        inputSchema: input,
      };
    }),
  );
}

const path = text('A path inside an allowed directory.');

/** The 14 tools of the reference filesystem MCP server. */
export function filesystemTools(): DeclaredTool[] {
  const tools: [string, string, Schema][] = [
    ['read_file', 'Read a file as text.', object({ path }, ['path'])],
    ['read_text_file', 'Read a text file, optionally only its head or tail lines.', object({ path, head: { type: 'integer' }, tail: { type: 'integer' } }, ['path'])],
    ['read_media_file', 'Read an image or audio file as base64 with its MIME type.', object({ path }, ['path'])],
    ['read_multiple_files', 'Read several files at once.', object({ paths: { type: 'array', items: { type: 'string' } } }, ['paths'])],
    ['write_file', 'Create or overwrite a file.', object({ path, content: text('The new content.') }, ['path', 'content'])],
    ['edit_file', 'Replace text in a file and return a diff.', object({ path, edits: { type: 'array', items: object({ oldText: { type: 'string' }, newText: { type: 'string' } }, ['oldText', 'newText']) }, dryRun: { type: 'boolean' } }, ['path', 'edits'])],
    ['create_directory', 'Create a directory, with its parents.', object({ path }, ['path'])],
    ['list_directory', 'List a directory: [FILE] and [DIR] entries.', object({ path }, ['path'])],
    ['list_directory_with_sizes', 'List a directory with file sizes.', object({ path, sortBy: { enum: ['name', 'size'] } }, ['path'])],
    ['directory_tree', 'A recursive tree of a directory as JSON.', object({ path }, ['path'])],
    ['move_file', 'Move or rename a file or directory.', object({ source: path, destination: path }, ['source', 'destination'])],
    ['search_files', 'Find files whose names match a pattern.', object({ path, pattern: text('A glob.'), excludePatterns: { type: 'array', items: { type: 'string' } } }, ['path', 'pattern'])],
    ['get_file_info', 'Size, times and permissions of a file.', object({ path }, ['path'])],
    ['list_allowed_directories', 'The directories this server may use.', object({})],
  ]; // biome-ignore format: one row per tool
  return tools.map(([name, description, inputSchema]) => ({ name: `mcp__filesystem__${name}`, description, inputSchema }));
}

const entity = object({ name: { type: 'string' }, entityType: { type: 'string' }, observations: { type: 'array', items: { type: 'string' } } }, ['name', 'entityType', 'observations']); // biome-ignore format: one schema
const relation = object({ from: { type: 'string' }, to: { type: 'string' }, relationType: { type: 'string' } }, ['from', 'to', 'relationType']); // biome-ignore format: one schema

/** The 9 tools of the reference memory (knowledge graph) MCP server. */
export function memoryTools(): DeclaredTool[] {
  const tools: [string, string, Schema][] = [
    ['create_entities', 'Create entities in the knowledge graph.', object({ entities: { type: 'array', items: entity } }, ['entities'])],
    ['create_relations', 'Create relations between entities, in active voice.', object({ relations: { type: 'array', items: relation } }, ['relations'])],
    ['add_observations', 'Add observations to entities.', object({ observations: { type: 'array', items: object({ entityName: { type: 'string' }, contents: { type: 'array', items: { type: 'string' } } }, ['entityName', 'contents']) } }, ['observations'])],
    ['delete_entities', 'Delete entities and their relations.', object({ entityNames: { type: 'array', items: { type: 'string' } } }, ['entityNames'])],
    ['delete_observations', 'Delete observations from entities.', object({ deletions: { type: 'array', items: object({ entityName: { type: 'string' }, observations: { type: 'array', items: { type: 'string' } } }, ['entityName', 'observations']) } }, ['deletions'])],
    ['delete_relations', 'Delete relations.', object({ relations: { type: 'array', items: relation } }, ['relations'])],
    ['read_graph', 'Read the whole knowledge graph.', object({})],
    ['search_nodes', 'Find nodes by words in names, types and observations.', object({ query: { type: 'string' } }, ['query'])],
    ['open_nodes', 'Open nodes by name.', object({ names: { type: 'array', items: { type: 'string' } } }, ['names'])],
  ]; // biome-ignore format: one row per tool
  return tools.map(([name, description, inputSchema]) => ({ name: `mcp__memory__${name}`, description, inputSchema }));
}

/** The 243 tools of the issue: backoffice (220), filesystem (14), memory (9). */
export function unequalCatalogue(): DeclaredTool[] {
  return [...backofficeTools(), ...filesystemTools(), ...memoryTools()];
}
