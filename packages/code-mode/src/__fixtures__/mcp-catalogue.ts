// A large MCP-like catalogue (149 tools from six servers, and one more) for declaration snapshots. Built from
// templates, deterministically, with what real servers send: $ref into $defs, recursive
// definitions, enums, oneOf/anyOf, nullable type arrays, additionalProperties maps, and property
// and tool names that are not identifiers.
import type { DeclaredTool } from '../declarations-entry.js';

type Schema = Record<string, unknown>;

const jsonValueDefs: Schema = {
  JsonValue: {
    description: 'Any JSON value.',
    anyOf: [
      { type: ['string', 'number', 'boolean', 'null'] },
      { type: 'array', items: { $ref: '#/$defs/JsonValue' } },
      { type: 'object', additionalProperties: { $ref: '#/$defs/JsonValue' } },
    ],
  },
};

const treeDefs: Schema = {
  Node: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      kind: { enum: ['file', 'directory', 'symlink'] },
      size: { type: ['integer', 'null'], description: 'Bytes; null for directories.' },
      children: { type: 'array', items: { $ref: '#/$defs/Node' } },
    },
    required: ['name', 'kind'],
  },
};

const pageInput: Schema = {
  cursor: { type: ['string', 'null'], description: 'Opaque cursor from the previous page.' },
  per_page: { type: 'integer', minimum: 1, maximum: 100, default: 30 },
};

function listOutput(item: Schema): Schema {
  return {
    type: 'object',
    properties: { items: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
    required: ['items', 'next_cursor'],
  };
}

const templates: Record<string, (noun: string) => Pick<DeclaredTool, 'inputSchema' | 'outputSchema'>> = {
  list: (noun) => ({
    inputSchema: {
      type: 'object',
      properties: { ...pageInput, sort: { enum: ['created', 'updated', 'name'] }, direction: { enum: ['asc', 'desc'] } },
    },
    outputSchema: listOutput({ $ref: `#/$defs/${noun}` }),
  }),
  get: (noun) => ({
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    outputSchema: { $ref: `#/$defs/${noun}` },
  }),
  create: (noun) => ({
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 256 },
        body: { type: 'string' },
        metadata: { type: 'object', additionalProperties: { type: 'string' } },
        'x-request-id': { type: 'string', description: 'Idempotency key.' },
      },
      required: ['title'],
    },
    outputSchema: {
      oneOf: [
        { type: 'object', properties: { created: { const: true }, item: { $ref: `#/$defs/${noun}` } }, required: ['created', 'item'] },
        { type: 'object', properties: { created: { const: false }, error: { type: 'string' } }, required: ['created', 'error'] },
      ],
    },
  }),
  update: (noun) => ({
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        changes: { allOf: [{ type: 'object', properties: { title: { type: 'string' } } }, { type: 'object', properties: { state: { enum: ['open', 'closed', 'archived'] } } }] },
      },
      required: ['id', 'changes'],
    },
    outputSchema: { $ref: `#/$defs/${noun}` },
  }),
  delete: () => ({
    inputSchema: { type: 'object', properties: { id: { type: 'string' }, force: { type: 'boolean', default: false } }, required: ['id'] },
    outputSchema: { type: 'object', properties: { deleted: { type: 'boolean' } }, required: ['deleted'] },
  }),
  search: (noun) => ({
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Search terms; supports field:value qualifiers.' },
        filters: { anyOf: [{ type: 'object', additionalProperties: { $ref: '#/$defs/JsonValue' } }, { type: 'null' }] },
        ...pageInput,
      },
      required: ['query'],
      $defs: jsonValueDefs,
    },
    outputSchema: listOutput({ $ref: `#/$defs/${noun}` }),
  }),
  tree: () => ({
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer', maximum: 10 } }, required: ['path'] },
    outputSchema: { $ref: '#/$defs/Node', $defs: treeDefs },
  }),
  query: () => ({
    inputSchema: {
      type: 'object',
      properties: { sql: { type: 'string' }, params: { type: 'array', items: { $ref: '#/$defs/JsonValue' } } },
      required: ['sql'],
      $defs: jsonValueDefs,
    },
    outputSchema: {
      type: 'object',
      properties: {
        columns: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, type: { type: 'string' } } } },
        rows: { type: 'array', items: { type: 'array', items: { $ref: '#/$defs/JsonValue' } } },
      },
      $defs: jsonValueDefs,
    },
  }),
};

const servers: Record<string, { nouns: string[]; verbs: string[] }> = {
  github: { nouns: ['issue', 'pull_request', 'repository', 'branch', 'release', 'workflow', 'gist'], verbs: ['list', 'get', 'create', 'update', 'delete', 'search'] },
  slack: { nouns: ['channel', 'message', 'user', 'reminder', 'file'], verbs: ['list', 'get', 'create', 'update', 'delete', 'search'] },
  linear: { nouns: ['issue', 'project', 'cycle', 'team', 'comment'], verbs: ['list', 'get', 'create', 'update', 'delete', 'search'] },
  filesystem: { nouns: ['file', 'directory', 'symlink'], verbs: ['get', 'create', 'delete', 'tree'] },
  postgres: { nouns: ['table', 'view', 'schema', 'index', 'role'], verbs: ['list', 'get', 'query'] },
  browser: { nouns: ['tab', 'bookmark', 'download', 'cookie', 'history-entry'], verbs: ['list', 'get', 'create', 'delete'] },
};

function entityDef(noun: string, server: string): Schema {
  return {
    type: 'object',
    description: `A ${noun.replaceAll('_', ' ')} in ${server}.`,
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      state: { enum: ['open', 'closed', 'archived'] },
      created_at: { type: 'string', format: 'date-time' },
      owner: { anyOf: [{ $ref: '#/$defs/User' }, { type: 'null' }] },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['id', 'name', 'created_at'],
  };
}

const userDef: Schema = {
  type: 'object',
  properties: { login: { type: 'string' }, display_name: { type: ['string', 'null'] }, manager: { $ref: '#/$defs/User' } },
  required: ['login'],
};

function pascal(text: string): string {
  return text
    .split(/[^a-z0-9]+/i)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** The 150-tool catalogue, in a scrambled order (the declarations must sort it). */
export function mcpCatalogue(): DeclaredTool[] {
  const tools: DeclaredTool[] = [];
  for (const [server, { nouns, verbs }] of Object.entries(servers)) {
    for (const noun of nouns) {
      for (const verb of verbs) {
        const defName = pascal(noun);
        const { inputSchema, outputSchema } = templates[verb]!(defName);
        const defs = { [defName]: entityDef(noun, server), User: userDef };
        tools.push({
          name: `mcp__${server}__${verb}_${noun}`,
          description: `${pascal(verb)} ${noun.replaceAll('_', ' ')}s in ${server}. Needs the ${server} connection to be authorised; see the server docs for scopes.`,
          inputSchema: inputSchema as Schema,
          ...(outputSchema === undefined ? {} : { outputSchema: { ...(outputSchema as Schema), $defs: { ...defs, ...((outputSchema as Schema).$defs as Schema) } } }),
        });
      }
    }
  }
  tools.push(fetchTool);
  return tools.sort((left, right) => (hash(left.name) - hash(right.name)) || (left.name < right.name ? -1 : 1));
}

// One tool outside the MCP servers: a tuple, a deep schema (past the depth cap) and a reserved word.
const fetchTool: DeclaredTool = {
  name: 'fetch-url',
  description: 'Fetch a URL and return its status, headers and text. Follows up to 5 redirects.',
  inputSchema: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' },
      method: { enum: ['GET', 'HEAD'] },
      range: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }], items: false, description: 'Byte range [start, end].' },
      class: { type: 'string', description: 'A property named with a reserved word.' },
    },
    required: ['url'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      status: { type: 'integer' },
      headers: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: { type: 'string' } },
      text: { type: 'string' },
      deep: nested(16),
    },
    required: ['status', 'headers', 'text'],
  },
};

function nested(depth: number): Schema {
  return depth === 0 ? { type: 'string' } : { type: 'object', properties: { next: nested(depth - 1) } };
}

function hash(text: string): number {
  let value = 2166136261;
  for (let index = 0; index < text.length; index += 1) value = Math.imul(value ^ text.charCodeAt(index), 16777619) >>> 0;
  return value;
}
