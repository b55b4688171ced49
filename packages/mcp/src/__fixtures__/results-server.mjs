// An upstream MCP server whose tools return each shape of result the program-facing rules cover:
// one image, nothing, a schema tool's error with a value and without one, and a long text.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const empty = { type: 'object', properties: {} };
const shellOutput = {
  type: 'object',
  properties: { output: { type: 'string' }, exitCode: { type: 'integer' } },
  required: ['output', 'exitCode'],
};
const tools = [
  { name: 'picture', description: 'One image.', inputSchema: empty },
  { name: 'nothing', description: 'No content at all.', inputSchema: empty },
  { name: 'grep', description: 'Exits 2 with output.', inputSchema: empty, outputSchema: shellOutput },
  { name: 'broken', description: 'Fails without a value.', inputSchema: empty, outputSchema: shellOutput },
  { name: 'refuse', description: 'Fails with text.', inputSchema: empty },
];

const server = new Server({ name: 'results', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  switch (request.params.name) {
    case 'picture':
      return { content: [{ type: 'image', data: pixel, mimeType: 'image/png' }] };
    case 'nothing':
      return { content: [] };
    case 'grep':
      return {
        content: [{ type: 'text', text: 'exit code 2' }],
        structuredContent: { output: 'grep: notes.txt: No such file', exitCode: 2 },
        isError: true,
      };
    case 'broken':
      return { content: [{ type: 'text', text: 'disk full' }], isError: true };
    case 'refuse':
      return { content: [{ type: 'text', text: 'not today' }], isError: true };
    default:
      return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
