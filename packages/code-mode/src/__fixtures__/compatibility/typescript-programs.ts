// TypeScript programs in the shapes models send to a code-mode tool, written for this suite. Each
// calls the tools in ./tools.ts and states the value it must return, or the fix its failure must name.
import { expect } from 'vitest';
import type { CompatibilityCase } from './suite.js';

export const typescriptPrograms: readonly CompatibilityCase[] = [
  {
    style: 'arrow-wrapped: the whole program is one async arrow',
    program: `async () => {
  const weather = await tools.get_weather({ city: 'Lima' });
  return \`\${weather.city}: \${weather.temp}°C, \${weather.conditions}\`;
}`,
    expect: { value: 'Lima: 22°C, cloudy' },
  },
  {
    style: 'arrow-wrapped with a trailing semicolon and a fan-out inside',
    program: `async () => {
  const cities = ['Oslo', 'Nairobi', 'Hanoi'];
  const reports = await Promise.all(cities.map((city) => tools.get_weather({ city })));
  const warmest = reports.reduce((best, report) => (report.temp > best.temp ? report : best));
  return { warmest: warmest.city, spread: warmest.temp - Math.min(...reports.map((r) => r.temp)) };
};`,
    expect: { value: { warmest: 'Hanoi', spread: 27 } },
  },
  {
    style: 'markdown-fenced, with a return',
    program: `\`\`\`typescript
const open = await issues.list({ state: 'open', limit: 50 });
const bugs = open.items.filter((issue: { labels: string[] }) => issue.labels.includes('bug'));
return bugs.map((issue: { id: number }) => issue.id);
\`\`\``,
    expect: { value: [101, 104] },
  },
  {
    style: 'markdown-fenced javascript ending in a bare expression',
    program: `\`\`\`javascript
const results = await search.web({ query: 'rust borrow checker', limit: 2 });
results.map((result) => result.title)
\`\`\``,
    expect: { value: ['rust borrow checker (1)', 'rust borrow checker (2)'] },
  },
  {
    style: 'a final bare expression as the answer',
    program: `const page = await issues.list({ limit: 50 });
const byState = {};
for (const issue of page.items) byState[issue.state] = (byState[issue.state] ?? 0) + 1;
byState`,
    expect: { value: { open: 5, closed: 2 } },
  },
  {
    style: 'a final bare expression that is a parenthesised object literal',
    program: `const issue = await issues.get({ id: 102 });
({ title: issue.title, popular: issue.votes > 20 })`,
    expect: { value: { title: 'Dark mode', popular: true } },
  },
  {
    style: 'a named main that is declared and never called',
    program: `async function main() {
  const sum = await calculator.add({ a: 19.5, b: 22.5 });
  const half = await calculator.divide({ dividend: sum, divisor: 2 });
  return { sum, half };
}`,
    expect: { value: { sum: 42, half: 21 } },
  },
  {
    style: 'export default of an async function',
    program: `export default async function () {
  const product = JSON.parse(await shop.product_json({ sku: 'SKU-3' }));
  return product.stock > 0 ? \`\${product.name} in stock\` : \`\${product.name} sold out\`;
}`,
    expect: { value: 'mug in stock' },
  },
  {
    style: 'export default of a value computed above it',
    program: `const first = await issues.list({ limit: 1 });
const summary = { total: first.items.length, more: first.nextCursor !== null };
export default summary;`,
    expect: { value: { total: 1, more: true } },
  },
  {
    style: 'a tool returning JSON text, parsed with JSON.parse',
    program: `const raw = await shop.product_json({ sku: 'SKU-1' });
const product = JSON.parse(raw);
return { name: product.name, price: (product.priceCents / 100).toFixed(2) };`,
    expect: { value: { name: 'kettle', price: '24.99' } },
  },
  {
    style: 'JSON text per item, parsed inside a per-item try/catch',
    program: `const skus = ['SKU-1', 'SKU-9', 'SKU-2'];
const rows = [];
for (const sku of skus) {
  try {
    const product = JSON.parse(await shop.product_json({ sku }));
    rows.push({ sku, available: product.stock > 0 });
  } catch (error) {
    rows.push({ sku, error: error instanceof Error ? error.message : String(error) });
  }
}
return rows;`,
    expect: {
      value: [
        { sku: 'SKU-1', available: true },
        { sku: 'SKU-9', error: expect.stringContaining('unknown sku SKU-9') },
        { sku: 'SKU-2', available: false },
      ],
    },
  },
  {
    style: 'per-item try/catch around a tool that fails for some items',
    program: `const temps: Record<string, number> = {};
const missing: string[] = [];
for (const city of ['Oslo', 'Atlantis', 'Nairobi']) {
  try {
    temps[city] = (await tools.get_weather({ city })).temp;
  } catch {
    missing.push(city);
  }
}
return { temps, missing };`,
    expect: { value: { temps: { Oslo: 3, Nairobi: 25 }, missing: ['Atlantis'] } },
  },
  {
    style: 'Promise.allSettled over calls where one fails',
    program: `const settled = await Promise.allSettled([
  calculator.divide({ dividend: 9, divisor: 3 }),
  calculator.divide({ dividend: 1, divisor: 0 }),
]);
return settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'failed'));`,
    expect: { value: [3, 'failed'] },
  },
  {
    style: 'Promise.all fan-out over a page of issues',
    program: `const { items } = await issues.list({ state: 'open', limit: 3 });
const details = await Promise.all(items.map((item) => issues.get({ id: item.id })));
return details.sort((a, b) => b.votes - a.votes).map((issue) => issue.title);`,
    expect: { value: ['Dark mode', 'Crash on empty config', 'Slow startup on Windows'] },
  },
  {
    style: 'a pagination loop passing { cursor, limit } with cursor undefined at first',
    program: `let cursor: string | undefined;
const titles: string[] = [];
do {
  const page = await issues.list({ cursor, limit: 3 });
  titles.push(...page.items.map((issue) => issue.title));
  cursor = page.nextCursor ?? undefined;
} while (cursor);
return titles.length;`,
    expect: { value: 7 },
  },
  {
    style: 'a pagination loop with for (;;), a filter and break',
    program: `let cursor;
let votes = 0;
for (;;) {
  const page = await issues.list({ state: 'open', cursor, limit: 2 });
  for (const issue of page.items) votes += issue.votes;
  if (!page.nextCursor) break;
  cursor = page.nextCursor;
}
return votes;`,
    expect: { value: 80 },
  },
  {
    style: 'a positional argument for a tool with one required property',
    program: `const hits = await search.web('oslo population');
return hits.map((hit) => hit.url);`,
    expect: {
      value: [
        'https://example.org/oslo-population/1',
        'https://example.org/oslo-population/2',
        'https://example.org/oslo-population/3',
      ],
    },
  },
  {
    style: "two positional arguments in the schema's order",
    program: 'return await calculator.add(5, 3);',
    expect: { value: 8 },
  },
  {
    style: 'positional arguments for every property, in declared order',
    program: `const hits = await search.web('tea kettles', 5);
hits.filter((hit) => hit.score > 0.7).length`,
    expect: { value: 3 },
  },
  {
    style: 'a positional argument for a tool with no required property',
    program: `const page = await issues.list('open');
page.items.length`,
    expect: { fails: /its properties are state, cursor, limit \(none required\): pass one object instead/ },
    note: 'one argument could be any of three properties; the message names them and the object form',
  },
  {
    style: 'a bare tool name without its namespace',
    program: `const weather = await get_weather({ city: 'Nairobi', units: 'imperial' });
return weather.temp;`,
    expect: { value: 77 },
  },
  {
    style: 'a bare tool name called with positional arguments',
    program: `const total = await add(5, 3);
total * 2`,
    expect: { value: 16 },
  },
  {
    style: 'a missing await on a call whose promise is returned',
    program: `async () => {
  return tools.get_weather({ city: 'Hanoi' });
}`,
    expect: { value: { city: 'Hanoi', temp: 30, conditions: 'rain' } },
  },
  {
    style: 'a missing await, the promise then read as the value',
    program: `const weather = tools.get_weather({ city: 'Oslo' });
return weather.temp < 5 ? 'cold' : 'mild';`,
    expect: { fails: /\(await tools\.get_weather\(\.\.\.\)\)\.temp/ },
    note: 'reading a field of the pending call throws, naming `(await tools.get_weather(...)).temp`',
  },
  {
    style: 'a missing await, the promise put into the result',
    program: `const cities = ['Lima', 'Oslo'];
const reports = {};
for (const city of cities) reports[city] = tools.get_weather({ city });
return reports;`,
    expect: { fails: /Promise .*write `await` before it/ },
    note: 'a pending call has no JSON form; the message says to await it',
  },
  {
    style: 'a Date in the result, fixed',
    program: `const issue = await issues.get({ id: 104 });
const due = new Date(Date.UTC(2026, 11, 24, 9, 30));
return { id: issue.id, due };`,
    expect: { value: { id: 104, due: '2026-12-24T09:30:00.000Z' } },
  },
  {
    style: 'new Date() in the result, next to undefined properties',
    program: `const weather = await tools.get_weather({ city: 'Oslo' });
return { city: weather.city, checkedAt: new Date(), note: undefined };`,
    expect: { value: { city: 'Oslo', checkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) } },
  },
  {
    style: 'URL and URLSearchParams',
    program: `const [top] = await search.web({ query: 'tea kettles', limit: 1 });
const url = new URL(top.url);
url.searchParams.set('utm_source', 'agent');
const query = new URLSearchParams({ q: 'tea & cake', page: '2' });
return { host: url.hostname, href: url.href, query: query.toString() };`,
    expect: {
      value: {
        host: 'example.org',
        href: 'https://example.org/tea-kettles/1?utm_source=agent',
        query: 'q=tea+%26+cake&page=2',
      },
    },
  },
  {
    style: 'TextEncoder, TextDecoder, btoa and atob',
    program: `const product = JSON.parse(await shop.product_json({ sku: 'SKU-1' }));
const token = btoa(\`\${product.name}:\${product.priceCents}\`);
const bytes = new TextEncoder().encode('Ålesund ☃');
return { token, back: atob(token), bytes: bytes.length, text: new TextDecoder().decode(bytes) };`,
    expect: { value: { token: 'a2V0dGxlOjI0OTk=', back: 'kettle:2499', bytes: 12, text: 'Ålesund ☃' } },
  },
  {
    style: 'structuredClone and crypto.randomUUID',
    program: `const issue = await issues.get({ id: 105 });
const draft = structuredClone(issue);
draft.labels.push('triaged');
const requestId = crypto.randomUUID();
return { before: issue.labels, after: draft.labels, uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(requestId) };`,
    expect: { value: { before: ['feature'], after: ['feature', 'triaged'], uuid: true } },
  },
  {
    style: 'console.log as it goes, module-level state mutated by a helper',
    program: `let calls = 0;
async function lookup(id: number) {
  calls += 1;
  const issue = await issues.get({ id });
  console.log(\`#\${id} \${issue.state}\`);
  return issue.state;
}
const states = [await lookup(101), await lookup(103)];
return { states, calls };`,
    expect: { value: { states: ['open', 'closed'], calls: 2 } },
  },
  {
    style: 'an import of a Node module',
    program: `import { readFile } from 'node:fs/promises';
const config = JSON.parse(await readFile('./config.json', 'utf8'));
config.city`,
    expect: { fails: /Imports are not available.*call those instead/ },
    note: 'nothing can be loaded; the message says what a program has instead',
  },
  {
    style: 'a Map in the result',
    program: `const { items } = await issues.list({ limit: 50 });
const byLabel = new Map<string, number>();
for (const issue of items) for (const label of issue.labels) byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
return { byLabel };`,
    expect: { value: { byLabel: { bug: 3, feature: 2, docs: 1, perf: 1, i18n: 1 } } },
    note: 'a Map crosses as an object (JSON.stringify would silently write {})',
  },
  {
    style: 'a property name the schema does not have',
    program: `const weather = await tools.get_weather({ town: 'Oslo' });
weather.temp`,
    expect: { fails: /\$\.city is required; \$\.town is not allowed/ },
    note: 'the message names the expected and the unexpected property',
  },
  {
    style: 'a fenced async arrow',
    program: `\`\`\`ts
async () => {
  const product = JSON.parse(await shop.product_json({ sku: 'SKU-2' }));
  return product.stock === 0;
}
\`\`\``,
    expect: { value: true },
  },
];
