// An upstream MCP server for the end-to-end tests: a few tools with schemas, over stdio.
// LAB_MODE=exit-at-start exits before answering anything; LAB_MODE=hang-at-start never answers.
// LAB_NAMES=1 adds tools whose names are hard to bind: `get-time` and `get_time` (one binding), and `delete`.
import { appendFileSync } from 'node:fs';

const mode = process.env.LAB_MODE ?? 'normal';
if (mode === 'exit-at-start') {
  process.stderr.write('lab: cannot open the lab database\n');
  process.exit(1);
}
// Imported after the exit above: loading the SDK takes seconds on a loaded machine, and a server
// that fails to start must exit well inside a test's short start timeout, as a broken one does.
const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
if (mode === 'hang-at-start') {
  process.stderr.write('lab: warming up forever\n');
  setInterval(() => {}, 60_000);
} else {
  const events = [];
  const tools = [
    {
      name: 'add',
      description: 'Add two numbers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    },
    {
      name: 'echo',
      description: 'Repeat the text back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    {
      name: 'wait',
      description: 'Wait for a number of milliseconds, or until cancelled.',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    },
    {
      name: 'events',
      description: 'What the lab has seen: calls made and calls cancelled.',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: { events: { type: 'array', items: { type: 'string' } } },
        required: ['events'],
      },
    },
    {
      name: 'delete_everything',
      description: 'Delete every record in the lab.',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'fail',
      description: 'Always fails.',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'crash',
      description: 'Kill the lab server process.',
      inputSchema: { type: 'object', properties: {} },
    },
  ];

  if (process.env.LAB_NAMES === '1') {
    for (const name of ['get-time', 'get_time', 'delete']) {
      tools.push({ name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: {} } });
    }
  }
  const server = new Server({ name: 'lab', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: input = {} } = request.params;
    events.push(`called ${name}`);
    // LAB_LEDGER: a file every call is appended to, so tests across processes count what really ran.
    if (process.env.LAB_LEDGER) appendFileSync(process.env.LAB_LEDGER, `${JSON.stringify({ name, input })}\n`);
    // LAB_TRACE_LEDGER: the W3C trace context each call carried in _meta, for the telemetry tests.
    if (process.env.LAB_TRACE_LEDGER) {
      const traceparent = request.params._meta?.traceparent ?? null;
      appendFileSync(process.env.LAB_TRACE_LEDGER, `${JSON.stringify({ name, traceparent })}\n`);
    }
    const text = (value) => ({ content: [{ type: 'text', text: value }] });
    switch (name) {
      case 'add':
        return { content: [], structuredContent: { sum: input.a + input.b } };
      case 'echo':
        return text(input.text);
      case 'wait':
        return await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(text(`waited ${input.ms} ms`)), input.ms);
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            events.push('cancelled wait');
            resolve(text('cancelled'));
          });
        });
      case 'events':
        return { content: [], structuredContent: { events: [...events] } };
      case 'delete_everything':
        events.push('deleted everything');
        return text('deleted');
      case 'fail':
        return { content: [{ type: 'text', text: 'the lab tool failed on purpose' }], isError: true };
      case 'crash':
        process.stderr.write('lab: crashing on purpose\n');
        setTimeout(() => process.exit(3), 10);
        return await new Promise(() => {});
      case 'get-time':
      case 'get_time':
      case 'delete':
        return text(`called ${name}`);
      default:
        return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
    }
  });
  await server.connect(new StdioServerTransport());
}
