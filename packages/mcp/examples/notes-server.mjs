// A small MCP server to try `sluice mcp` with: notes kept in memory, served over stdio.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const notes = new Map([
  [1, { id: 1, title: 'Groceries', body: 'eggs, flour, lemons', tags: ['home'] }],
  [2, { id: 2, title: 'Release plan', body: 'tag, publish, announce', tags: ['work'] }],
  [3, { id: 3, title: 'Lemon tart', body: 'needs lemons and eggs', tags: ['home', 'recipes'] }],
]);
let nextId = 4;

const note = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    body: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['id', 'title', 'body', 'tags'],
};
const tools = [
  {
    name: 'search_notes',
    description: 'Find notes whose title or body contains the text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    outputSchema: { type: 'object', properties: { notes: { type: 'array', items: note } }, required: ['notes'] },
  },
  {
    name: 'add_note',
    description: 'Add a note and return it.',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        body: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['title', 'body'],
    },
    outputSchema: note,
  },
  {
    name: 'delete_note',
    description: 'Delete a note by id.',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
  },
];

const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const input = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'search_notes': {
      const text = String(input.text).toLowerCase();
      const found = [...notes.values()].filter((n) => `${n.title} ${n.body}`.toLowerCase().includes(text));
      return { content: [], structuredContent: { notes: found } };
    }
    case 'add_note': {
      const added = { id: nextId++, title: input.title, body: input.body, tags: input.tags ?? [] };
      notes.set(added.id, added);
      return { content: [], structuredContent: added };
    }
    case 'delete_note':
      return { content: [{ type: 'text', text: notes.delete(input.id) ? 'deleted' : 'no such note' }] };
    default:
      return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
