// The tools the compatibility programs call: a weather service, web search, an issue tracker with
// cursor pages, a calculator and a shop whose tool answers with JSON text. Each has a JSON Schema
// input, as MCP servers and function-calling APIs declare them, and answers deterministically.
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

export const add: Tool = {
  name: 'calculator.add',
  description: 'a + b.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: (input) => (input as { a: number }).a + (input as { b: number }).b,
};

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

/** Every tool, allowed by the suite's policy. */
export const compatibilityTools: readonly Tool[] = [
  getWeather,
  webSearch,
  listIssues,
  getIssue,
  add,
  divide,
  productJson,
];
