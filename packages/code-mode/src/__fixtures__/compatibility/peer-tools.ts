// The tools of the public code-mode peers' own examples, as their hosts name them: Cloudflare's code
// mode (AI SDK tools `getWeather`, `sendEmail`, a task list; an MCP server's tools under its name) and
// the servers of Anthropic's "code execution with MCP" (`google-drive`, `salesforce`, `slack`, named
// `<server>__<tool>` as an MCP client names them), and the AI SDK tools of the code-mode examples for
// Vercel's AI SDK (`getUserLocation` with an empty input schema, `searchFlights`, `getStockPrice`).
// Deterministic; the task list and the CRM keep their changes for one run at a time (each program
// starts from the same state: see `resetPeerTools`).
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

export const peerTools: readonly Tool[] = [
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
