// The tools of the public code-mode peers' own examples, as their hosts name them: Cloudflare's code
// mode (AI SDK tools `getWeather`, `sendEmail`, a task list; an MCP server's tools under its name) and
// the servers of Anthropic's "code execution with MCP" (`google-drive`, `salesforce`, `slack`, named
// `<server>__<tool>` as an MCP client names them), and the AI SDK tools of the code-mode examples for
// Vercel's AI SDK (`getUserLocation` with an empty input schema, `searchFlights`, `getStockPrice`);
// besides, the MCP servers of Cloudflare's code-mode docs: `fs`, `db` and `tasks` for multi-server
// orchestration, a `kv` server whose tools are named `list-keys` and `delete`, and the Cloudflare API
// server's one `request` tool over a few zones and DNS records.
// Deterministic; the task list and the CRM keep their changes for one run at a time (each program
// starts from the same state: see `resetPeerTools`).
import type { JsonValue } from '@sluice/code-runtime';
import type { Tool } from '@sluice/permissions';

type Input = Record<string, unknown>;

const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const weather: Record<string, string> = { London: '72°F, sunny', Paris: '64°F, cloudy', Oslo: '38°F, snow' };

let tasks: Array<{ id: number; title: string; status: 'todo' | 'done'; priority: 'high' | 'low' }> = [];
let leads: Array<{ Id: string; Email: string; Phone: string; Name: string }> = [];
let kvKeys: Array<{ name: string; expiration: number }> = [];
let dnsRecords: Array<{ id: string; name: string; type: string; content: string; proxied: boolean }> = [];

/** Puts the task list and the CRM back as they start. */
export function resetPeerTools(): void {
  tasks = [
    { id: 1, title: 'Write release notes', status: 'todo', priority: 'high' },
    { id: 2, title: 'Fix flaky test', status: 'done', priority: 'high' },
    { id: 3, title: 'Update logo', status: 'todo', priority: 'low' },
  ];
  leads = [
    { Id: '00Q1', Email: 'ana@example.org', Phone: '+55 11 5555 0101', Name: 'Ana Lima' },
    { Id: '00Q2', Email: 'bo@example.org', Phone: '+47 555 01 02', Name: 'Bo Berg' },
  ];
  kvKeys = [
    { name: 'config:theme', expiration: 0 },
    { name: 'session:a1', expiration: 1_764_000_000 },
    { name: 'session:b2', expiration: 1_799_999_999 },
    { name: 'session:c3', expiration: 1_763_000_000 },
  ];
  dnsRecords = [
    { id: 'r1', name: 'example.com', type: 'A', content: '192.0.2.1', proxied: true },
    { id: 'r2', name: 'www.example.com', type: 'CNAME', content: 'example.com', proxied: true },
    { id: 'r3', name: 'example.com', type: 'MX', content: 'mail.example.com', proxied: false },
  ];
}
resetPeerTools();

const sheetRows = [
  { orderId: 'A-1', Status: 'pending', region: 'EU', amount: 120.5 },
  { orderId: 'A-2', Status: 'shipped', region: 'US', amount: 80 },
  { orderId: 'A-3', Status: 'pending', region: 'US', amount: 42.25 },
  { orderId: 'A-4', Status: 'pending', region: 'EU', amount: 15 },
  { orderId: 'A-5', Status: 'cancelled', region: 'EU', amount: 60 },
];

const flights = [
  { id: 'LH-921', from: 'London', to: 'Oslo', date: '2026-12-18', priceUsd: 214, stops: 0 },
  { id: 'SK-802', from: 'London', to: 'Oslo', date: '2026-12-18', priceUsd: 168, stops: 0 },
  { id: 'KL-1144', from: 'London', to: 'Oslo', date: '2026-12-18', priceUsd: 131, stops: 1 },
  { id: 'AF-1670', from: 'Paris', to: 'Oslo', date: '2026-12-18', priceUsd: 190, stops: 0 },
];

const stockPrices: Record<string, number> = { NET: 182.4, VRCL: 41.25, ANTH: 310 };

const zones = [
  { id: 'z1', name: 'example.com', status: 'active', plan: { name: 'Pro' } },
  { id: 'z2', name: 'example.org', status: 'pending', plan: { name: 'Free' } },
  { id: 'z3', name: 'example.net', status: 'active', plan: { name: 'Free' } },
];

// A sliver of the Cloudflare API, answered as its v4 envelope `{ success, errors, result, result_info }`.
function cloudflareRequest(input: Input): JsonValue {
  const method = String(input.method);
  const path = String(input.path);
  const query = (input.query ?? {}) as Record<string, unknown>;
  if (method === 'GET' && path === '/zones') {
    const perPage = Number(query.per_page ?? 20);
    const page = Number(query.page ?? 1);
    const result = zones.slice((page - 1) * perPage, page * perPage);
    const totalPages = Math.ceil(zones.length / perPage);
    return { success: true, errors: [], result, result_info: { page, per_page: perPage, total_pages: totalPages } };
  }
  const records = /^\/zones\/(z\d)\/dns_records$/.exec(path);
  if (records !== null && zones.some((zone) => zone.id === records[1])) {
    if (method === 'GET') return { success: true, errors: [], result: records[1] === 'z1' ? dnsRecords : [] };
    if (method === 'POST') {
      const body = (input.body ?? {}) as Record<string, unknown>;
      const record = {
        id: `r${dnsRecords.length + 1}`,
        name: String(body.name),
        type: String(body.type),
        content: String(body.content),
        proxied: body.proxied === true,
      };
      dnsRecords.push(record);
      return { success: true, errors: [], result: record };
    }
  }
  throw new Error(`Cloudflare API ${method} ${path}: 7003 Could not route to ${path}, perhaps your object identifier is invalid?`);
}

export const peerTools: readonly Tool[] = [
  {
    name: 'fs__list_files',
    description: 'Lists the entries of a folder',
    inputSchema: object({ path: { type: 'string' } }, ['path']),
    execute: () => [
      { name: 'atlas', type: 'directory' },
      { name: 'beacon', type: 'directory' },
    ],
  },
  {
    name: 'db__query',
    description: 'Runs a SQL query with positional parameters',
    inputSchema: object({ query: { type: 'string' }, params: { type: 'array' } }, ['query']),
    execute: (input) => {
      const params = ((input as Input).params ?? []) as unknown[];
      return params[0] === 'beacon' ? [{ id: 7, name: 'beacon', owner: 'bo' }] : [];
    },
  },
  {
    name: 'tasks__create',
    description: 'Creates a task in the tracker',
    inputSchema: object({ title: { type: 'string' }, priority: { enum: ['high', 'low'] } }, ['title']),
    execute: (input) => ({ id: 'T-100', title: String((input as Input).title), priority: String((input as Input).priority) }),
  },
  {
    name: 'kv__list-keys',
    description: 'Lists the keys of the namespace with a prefix, with their expiration (Unix seconds, 0 for none)',
    inputSchema: object({ prefix: { type: 'string' } }),
    execute: (input) => {
      const prefix = String((input as Input | null)?.prefix ?? '');
      return kvKeys.filter((key) => key.name.startsWith(prefix));
    },
  },
  {
    name: 'kv__delete',
    description: 'Deletes a key',
    inputSchema: object({ key: { type: 'string' } }, ['key']),
    execute: (input) => {
      const key = String((input as Input).key);
      const before = kvKeys.length;
      kvKeys = kvKeys.filter((entry) => entry.name !== key);
      return { key, deleted: kvKeys.length < before };
    },
  },
  {
    name: 'cloudflare__request',
    description: 'Makes an authenticated request to the Cloudflare API v4',
    inputSchema: object(
      {
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        path: { type: 'string' },
        query: { type: 'object' },
        body: { type: 'object' },
      },
      ['method', 'path'],
    ),
    execute: (input) => cloudflareRequest(input as Input),
  },
  {
    name: 'getUserLocation',
    description: "Get the user's current city",
    inputSchema: object({}),
    execute: () => 'London',
  },
  {
    name: 'searchFlights',
    description: 'Search flights between two cities on a date (YYYY-MM-DD), cheapest last',
    inputSchema: object({ from: { type: 'string' }, to: { type: 'string' }, date: { type: 'string' } }, [
      'from',
      'to',
      'date',
    ]),
    execute: (input) => {
      const { from, to, date } = input as Input;
      return flights.filter((flight) => flight.from === from && flight.to === to && flight.date === date);
    },
  },
  {
    name: 'getStockPrice',
    description: 'The last price of a ticker in USD',
    inputSchema: object({ symbol: { type: 'string' } }, ['symbol']),
    execute: (input) => {
      const { symbol } = input as Input;
      const price = stockPrices[symbol as string];
      if (price === undefined) throw new Error(`unknown symbol ${String(symbol)}`);
      return { symbol: String(symbol), price, currency: 'USD' };
    },
  },
  {
    name: 'getWeather',
    description: 'Get weather for a location',
    inputSchema: object({ location: { type: 'string' } }, ['location']),
    execute: (input) => {
      const { location } = input as Input;
      const found = weather[location as string];
      if (found === undefined) throw new Error(`no forecast for ${String(location)}`);
      return `Weather in ${String(location)}: ${found}`;
    },
  },
  {
    name: 'sendEmail',
    description: 'Send an email',
    inputSchema: object({ to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } }, [
      'to',
      'subject',
      'body',
    ]),
    execute: (input) => `Email sent to ${String((input as Input).to)}`,
  },
  {
    name: 'createTask',
    description: 'Create a task',
    inputSchema: object({ title: { type: 'string' }, priority: { enum: ['high', 'low'] } }, ['title']),
    execute: (input) => {
      const { title, priority } = input as Input;
      const task = {
        id: tasks.length + 1,
        title: String(title),
        status: 'todo' as const,
        priority: priority === 'high' ? ('high' as const) : ('low' as const),
      };
      tasks.push(task);
      return task;
    },
  },
  {
    name: 'listTasks',
    description: 'List tasks, optionally by status',
    inputSchema: object({ status: { enum: ['todo', 'done'] } }),
    execute: (input) => {
      const status = (input as Input | null)?.status;
      return tasks.filter((task) => status === undefined || task.status === status);
    },
  },
  {
    name: 'completeTask',
    description: 'Mark a task done',
    inputSchema: object({ id: { type: 'integer' } }, ['id']),
    execute: (input) => {
      const task = tasks.find((candidate) => candidate.id === (input as Input).id);
      if (task === undefined) throw new Error(`no task ${String((input as Input).id)}`);
      task.status = 'done';
      return task;
    },
  },
  {
    name: 'github__list_pull_requests',
    description: 'List pull requests of a repository',
    inputSchema: object(
      { owner: { type: 'string' }, repo: { type: 'string' }, state: { enum: ['open', 'closed', 'all'] } },
      ['owner', 'repo'],
    ),
    execute: () => [
      { number: 41, title: 'Add codemode alias', draft: false, labels: ['feature'] },
      { number: 42, title: 'WIP: polyfills', draft: true, labels: ['feature'] },
      { number: 43, title: 'Fix typo', draft: false, labels: ['docs'] },
    ],
  },
  {
    name: 'github__create_issue',
    description: 'Open an issue',
    inputSchema: object({ owner: { type: 'string' }, repo: { type: 'string' }, title: { type: 'string' } }, [
      'owner',
      'repo',
      'title',
    ]),
    execute: (input) => ({ number: 99, title: String((input as Input).title) }),
  },
  {
    name: 'google-drive__getDocument',
    description: 'Retrieves a document from Google Drive',
    inputSchema: object({ documentId: { type: 'string' }, fields: { type: 'string' } }, ['documentId']),
    execute: (input) => ({
      documentId: String((input as Input).documentId),
      title: 'Sales call, 2 December',
      content: 'Customer wants 40 seats from January. Budget approved.',
    }),
  },
  {
    name: 'google-drive__getSheet',
    description: 'Reads the rows of a spreadsheet',
    inputSchema: object({ sheetId: { type: 'string' } }, ['sheetId']),
    execute: () => sheetRows,
  },
  {
    name: 'salesforce__updateRecord',
    description: 'Updates a Salesforce record',
    inputSchema: object(
      { objectType: { type: 'string' }, recordId: { type: 'string' }, data: { type: 'object' } },
      ['objectType', 'recordId', 'data'],
    ),
    execute: (input) => ({ id: String((input as Input).recordId), success: true }),
  },
  {
    name: 'salesforce__query',
    description: 'Runs a SOQL query',
    inputSchema: object({ query: { type: 'string' } }, ['query']),
    execute: () => leads,
  },
  {
    name: 'slack__getChannelHistory',
    description: 'Reads the latest messages of a channel',
    inputSchema: object({ channel: { type: 'string' } }, ['channel']),
    execute: () => [
      { user: 'ci', text: 'build 512 started' },
      { user: 'ci', text: 'deployment complete: v2.4.0' },
    ],
  },
  {
    name: 'slack__sendMessage',
    description: 'Posts a message to a channel',
    inputSchema: object({ channel: { type: 'string' }, text: { type: 'string' } }, ['channel', 'text']),
    execute: (input) => ({ ok: true, channel: String((input as Input).channel) }),
  },
];
