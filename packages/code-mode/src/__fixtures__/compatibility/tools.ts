// The tools the compatibility programs call: a weather service, web search, an issue tracker with
// cursor pages, a calculator, a shop whose tool answers with JSON text, workspace files (CSV,
// Markdown, JSON text), a page fetcher, a flaky order service, a customer store, email and
// smolagents' default `web_search` and `visit_webpage`. Each has
// a JSON Schema input, as MCP servers and function-calling APIs declare them, and answers
// deterministically (the order service fails each order's first attempt in a run).
import type { Tool } from '@sluice/permissions';

type Input = Record<string, unknown>;

const temperatures: Record<string, { tempC: number; conditions: string }> = {
  Oslo: { tempC: 3, conditions: 'snow' },
  Lima: { tempC: 22, conditions: 'cloudy' },
  Nairobi: { tempC: 25, conditions: 'sunny' },
  Hanoi: { tempC: 30, conditions: 'rain' },
};

const issues = [
  { id: 101, title: 'Crash on empty config', state: 'open', labels: ['bug'], votes: 12 },
  { id: 102, title: 'Dark mode', state: 'open', labels: ['feature'], votes: 40 },
  { id: 103, title: 'Typo in README', state: 'closed', labels: ['docs'], votes: 1 },
  { id: 104, title: 'Slow startup on Windows', state: 'open', labels: ['bug', 'perf'], votes: 7 },
  { id: 105, title: 'Export to CSV', state: 'open', labels: ['feature'], votes: 18 },
  { id: 106, title: 'Memory leak in watcher', state: 'closed', labels: ['bug'], votes: 9 },
  { id: 107, title: 'Translate to Basque', state: 'open', labels: ['i18n'], votes: 3 },
];

const products: Record<string, { name: string; priceCents: number; stock: number }> = {
  'SKU-1': { name: 'kettle', priceCents: 2499, stock: 4 },
  'SKU-2': { name: 'teapot', priceCents: 1850, stock: 0 },
  'SKU-3': { name: 'mug', priceCents: 650, stock: 31 },
};

export const getWeather: Tool = {
  name: 'get_weather',
  description: 'Current weather for a city. Fails for a city the service does not cover.',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name, e.g. "Oslo".' },
      units: { enum: ['metric', 'imperial'], default: 'metric' },
    },
    required: ['city'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { city, units } = input as Input;
    const found = temperatures[city as string];
    if (found === undefined) throw new Error(`no weather station near ${String(city)}`);
    const temp = units === 'imperial' ? Math.round((found.tempC * 9) / 5 + 32) : found.tempC;
    return { city: city as string, temp, conditions: found.conditions };
  },
};

export const webSearch: Tool = {
  name: 'search.web',
  description: 'Searches the web and returns the top results.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      limit: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    },
    required: ['query'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { query, limit } = input as Input;
    const words = String(query).split(/\s+/);
    return Array.from({ length: (limit as number | undefined) ?? 3 }, (_, index) => ({
      title: `${words.join(' ')} (${index + 1})`,
      url: `https://example.org/${words.join('-')}/${index + 1}`,
      score: 1 - index / 10,
    }));
  },
};

export const listIssues: Tool = {
  name: 'issues.list',
  description: "Lists issues, oldest first, a page at a time. Pass the previous page's nextCursor to go on.",
  inputSchema: {
    type: 'object',
    properties: {
      state: { enum: ['open', 'closed', 'all'], default: 'all' },
      cursor: { type: 'string', description: 'From the previous page; leave out for the first page.' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
    },
    additionalProperties: false,
  },
  execute: (input) => {
    const { state, cursor, limit } = input as Input;
    const matching = issues.filter((issue) => state === undefined || state === 'all' || issue.state === state);
    const start = cursor === undefined ? 0 : Number(cursor);
    const end = start + ((limit as number | undefined) ?? 20);
    return { items: matching.slice(start, end), nextCursor: end < matching.length ? String(end) : null };
  },
};

export const getIssue: Tool = {
  name: 'issues.get',
  description: 'One issue by its number.',
  inputSchema: {
    type: 'object',
    properties: { id: { type: 'integer' } },
    required: ['id'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { id } = input as Input;
    const issue = issues.find((candidate) => candidate.id === id);
    if (issue === undefined) throw new Error(`issue ${String(id)} not found`);
    return issue;
  },
};

// The calculator's a ∘ b tools, each taking two numbers.
const arithmetic = (name: string, description: string, apply: (a: number, b: number) => number): Tool => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: (input) => apply((input as { a: number }).a, (input as { b: number }).b),
});

export const add = arithmetic('calculator.add', 'a + b.', (a, b) => a + b);
export const subtract = arithmetic('calculator.subtract', 'a - b.', (a, b) => a - b);
export const multiply = arithmetic('calculator.multiply', 'a * b.', (a, b) => a * b);

export const divide: Tool = {
  name: 'calculator.divide',
  description: 'dividend / divisor. Fails when divisor is 0.',
  inputSchema: {
    type: 'object',
    properties: { dividend: { type: 'number' }, divisor: { type: 'number' } },
    required: ['dividend', 'divisor'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { dividend, divisor } = input as { dividend: number; divisor: number };
    if (divisor === 0) throw new Error('division by zero');
    return dividend / divisor;
  },
};

export const productJson: Tool = {
  name: 'shop.product_json',
  description: 'A product as JSON text: {"sku", "name", "priceCents", "stock"}.',
  inputSchema: {
    type: 'object',
    properties: { sku: { type: 'string' } },
    required: ['sku'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { sku } = input as Input;
    const product = products[sku as string];
    if (product === undefined) throw new Error(`unknown sku ${String(sku)}`);
    return JSON.stringify({ sku, ...product });
  },
};

const files: Record<string, string> = {
  'reports/sales.csv': 'region,month,units,revenue\nnorth,2026-09,120,3600.5\nsouth,2026-09,80,2400\nnorth,2026-10,95,2850\nsouth,2026-10,130,3900.25\neast,2026-10,40,1200\n',
  'notes/meeting.md':
    '# Planning, 2026-11-23\n\n- [x] Ship the exporter (@ana)\n- [ ] Fix the watcher leak (@bo)\n- [ ] Write release notes (@ana)\n\nNext meeting: 2026-11-30 10:00\n',
  'config/app.json': '{"name":"kettle-shop","features":{"darkMode":true,"export":false},"retries":3}',
};

export const readFile: Tool = {
  name: 'files.read',
  description: 'The text of a file in the workspace, by its relative path. Fails for a path that does not exist.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'e.g. "reports/sales.csv"' } },
    required: ['path'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { path } = input as Input;
    const text = files[path as string];
    if (text === undefined) throw new Error(`no such file: ${String(path)}`);
    return text;
  },
};

export const listFiles: Tool = {
  name: 'files.list',
  description: 'The paths of the workspace files under a folder, sorted.',
  inputSchema: {
    type: 'object',
    properties: { folder: { type: 'string', default: '' } },
    additionalProperties: false,
  },
  execute: (input) => {
    const folder = ((input as Input | null)?.folder as string | undefined) ?? '';
    return Object.keys(files)
      .filter((path) => folder === '' || path.startsWith(`${folder.replace(/\/$/, '')}/`))
      .sort();
  },
};

const pages: Record<string, string> = {
  'https://example.org/pricing':
    '<html><head><title>Pricing</title></head><body><h1>Plans</h1><ul><li>Starter: $9/month</li><li>Team: $29/month</li><li>Enterprise: contact us</li></ul></body></html>',
  'https://example.org/status': '<html><body><p>All systems operational. Last incident: 2026-11-12.</p></body></html>',
};

export const fetchPage: Tool = {
  name: 'web.fetch',
  description: 'Fetches a web page and returns { url, status, body } with the HTML as text; status 404 for an unknown page.',
  inputSchema: {
    type: 'object',
    properties: { url: { type: 'string', format: 'uri' } },
    required: ['url'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { url } = input as Input;
    const body = pages[url as string];
    return body === undefined ? { url: url as string, status: 404, body: '' } : { url: url as string, status: 200, body };
  },
};

// Fails the first attempt for each order in a run, as a flaky service does; the second attempt answers.
const attempts = new Map<string, number>();
const orders: Record<string, { status: string; items: number; totalCents: number }> = {
  'A-1': { status: 'shipped', items: 2, totalCents: 4998 },
  'A-2': { status: 'processing', items: 1, totalCents: 650 },
  'A-3': { status: 'delivered', items: 3, totalCents: 5150 },
};

export const orderStatus: Tool = {
  name: 'orders.status',
  description: 'The status of an order. The service is flaky: a call may fail with "503 temporarily unavailable"; retrying works.',
  inputSchema: {
    type: 'object',
    properties: { orderId: { type: 'string' } },
    required: ['orderId'],
    additionalProperties: false,
  },
  execute: (input, { runId }) => {
    const { orderId } = input as Input;
    const order = orders[orderId as string];
    if (order === undefined) throw new Error(`order ${String(orderId)} not found`);
    const key = `${runId}:${String(orderId)}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    if (attempt === 1) throw new Error('503 temporarily unavailable');
    return { orderId: orderId as string, ...order };
  },
};

const customers = [
  { id: 'c1', name: 'Ana Lima', email: 'ana@example.org', country: 'BR', spendCents: 125_000, since: '2021-03-04' },
  { id: 'c2', name: 'Bo Berg', email: 'bo@example.org', country: 'NO', spendCents: 4_500, since: '2025-07-19' },
  { id: 'c3', name: 'Chi Tran', email: 'chi@example.org', country: 'VN', spendCents: 88_000, since: '2023-01-30' },
  { id: 'c4', name: 'Dag Moe', email: 'dag@example.org', country: 'NO', spendCents: 230_000, since: '2019-11-02' },
];

export const findCustomers: Tool = {
  name: 'crm.find_customers',
  description: 'Customers, optionally filtered by ISO country code and minimum lifetime spend in cents.',
  inputSchema: {
    type: 'object',
    properties: {
      country: { type: 'string', pattern: '^[A-Z]{2}$' },
      minSpendCents: { type: 'integer', minimum: 0 },
    },
    additionalProperties: false,
  },
  execute: (input) => {
    const { country, minSpendCents } = (input ?? {}) as Input;
    return customers.filter(
      (customer) =>
        (country === undefined || customer.country === country) &&
        (minSpendCents === undefined || customer.spendCents >= (minSpendCents as number)),
    );
  },
};

export const sendEmail: Tool = {
  name: 'email.send',
  description: 'Sends an email and returns { id, to }. The id is "msg-" and the recipient\'s address.',
  inputSchema: {
    type: 'object',
    properties: {
      to: { type: 'string' },
      subject: { type: 'string', maxLength: 120 },
      body: { type: 'string' },
    },
    required: ['to', 'subject', 'body'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { to } = input as Input;
    return { id: `msg-${String(to)}`, to: to as string };
  },
};

// smolagents' two default tools, by their own names: a web search answering Markdown text, and a
// page visit answering the page as Markdown.
const searchResults: Record<string, string> = {
  'kettle-shop founding year':
    '## Search Results\n\n[About kettle-shop](https://example.org/about)\nkettle-shop was founded in 2014 in Bergen.\n\n[Kettle history](https://example.org/history)\nElectric kettles date from 1891.',
};

export const smolWebSearch: Tool = {
  name: 'web_search',
  description: 'Performs a web search for a query and returns the top results as Markdown text.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' } },
    required: ['query'],
    additionalProperties: false,
  },
  execute: (input) => searchResults[String((input as Input).query)] ?? '## Search Results\n\nNo results found.',
};

export const visitWebpage: Tool = {
  name: 'visit_webpage',
  description: 'Visits a web page at the given url and reads its content as a Markdown string.',
  inputSchema: {
    type: 'object',
    properties: { url: { type: 'string' } },
    required: ['url'],
    additionalProperties: false,
  },
  execute: (input) => {
    const { url } = input as Input;
    if (url === 'https://example.org/about') {
      return '# About kettle-shop\n\nFounded in 2014 in Bergen by two tea lovers.\n\nEmployees: 37\nStores: 4';
    }
    throw new Error(`Error fetching the webpage: 404 Client Error: Not Found for url: ${String(url)}`);
  },
};

/** Every tool, allowed by the suite's policy. */
export const compatibilityTools: readonly Tool[] = [
  getWeather,
  webSearch,
  listIssues,
  getIssue,
  add,
  subtract,
  multiply,
  divide,
  productJson,
  readFile,
  listFiles,
  fetchPage,
  orderStatus,
  findCustomers,
  sendEmail,
  smolWebSearch,
  visitWebpage,
];
