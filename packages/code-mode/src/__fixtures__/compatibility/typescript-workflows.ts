// Typescript programs in the styles of the public code-mode peers' examples and of what models
// write for everyday agent tasks: fan-out, retries, parsing tool text, grouping, reports. Written for
// this suite; each states the value a plain Node run of the same program returns.
import { expect } from 'vitest';
import type { CompatibilityCase } from './suite.js';

export const typescriptWorkflows: readonly CompatibilityCase[] = [
  {
    style: 'arrow-wrapped Promise.all fan-out over a list of cities, sorted by temperature',
    program: `async () => {
  const cities = ['Oslo', 'Lima', 'Nairobi', 'Hanoi'];
  const reports = await Promise.all(
    cities.map((city) => tools.get_weather({ city, units: 'imperial' })),
  );
  return reports
    .map(({ city, temp, conditions }) => ({ city, tempF: temp, conditions }))
    .sort((a, b) => b.tempF - a.tempF);
}`,
    expect: {
      value: [
        { city: 'Hanoi', tempF: 86, conditions: 'rain' },
        { city: 'Nairobi', tempF: 77, conditions: 'sunny' },
        { city: 'Lima', tempF: 72, conditions: 'cloudy' },
        { city: 'Oslo', tempF: 37, conditions: 'snow' },
      ],
    },
  },
  {
    style: 'batches of three with Promise.all per batch, progress logged, a summary returned',
    program: `const ids = [101, 102, 103, 104, 105, 106, 107];
const BATCH_SIZE = 3;
const fetched = [];

for (let i = 0; i < ids.length; i += BATCH_SIZE) {
  const batch = ids.slice(i, i + BATCH_SIZE);
  console.log(\`Fetching batch \${i / BATCH_SIZE + 1}: \${batch.join(', ')}\`);
  const results = await Promise.all(batch.map((id) => issues.get({ id })));
  fetched.push(...results);
}

const open = fetched.filter((issue) => issue.state === 'open');
const top = open.reduce((best, issue) => (issue.votes > best.votes ? issue : best));
console.log(\`Fetched \${fetched.length} issues, \${open.length} open\`);

return {
  fetched: fetched.length,
  open: open.length,
  openVotes: open.reduce((sum, issue) => sum + issue.votes, 0),
  mostVoted: \`#\${top.id} \${top.title}\`,
};`,
    expect: { value: { fetched: 7, open: 5, openVotes: 80, mostVoted: '#102 Dark mode' } },
  },
  {
    style: 'a retry loop with exponential backoff around a flaky service, one order at a time',
    program: `async function getStatusWithRetry(orderId: string, maxAttempts = 4) {
  let delay = 50;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    try {
      const result = await orders.status({ orderId });
      return { ...result, attempts: attempt };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (attempt === maxAttempts || !message.includes('503')) throw err;
      console.log(\`\${orderId}: attempt \${attempt} failed (\${message}), retrying in \${delay}ms\`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
  throw new Error('unreachable');
}

const results = [];
for (const id of ['A-1', 'A-2', 'A-3']) {
  results.push(await getStatusWithRetry(id));
}
return results.map((r) => ({ orderId: r.orderId, status: r.status, attempts: r.attempts }));`,
    expect: {
      value: [
        { orderId: 'A-1', status: 'shipped', attempts: 2 },
        { orderId: 'A-2', status: 'processing', attempts: 2 },
        { orderId: 'A-3', status: 'delivered', attempts: 2 },
      ],
    },
  },
  {
    style: 'arrow-wrapped generic withRetry<T> helper, positional calls fanned out in parallel',
    program: `async () => {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  async function withRetry<T>(fn: () => Promise<T>, retries = 3, baseMs = 25): Promise<T> {
    let lastError: unknown;
    for (let i = 0; i <= retries; i++) {
      try {
        return await fn();
      } catch (error) {
        lastError = error;
        if (i < retries) await sleep(baseMs * 2 ** i);
      }
    }
    throw lastError;
  }

  const orderIds = ['A-1', 'A-2', 'A-3'];
  const statuses = await Promise.all(orderIds.map((orderId) => withRetry(() => orders.status(orderId))));
  const totalCents = statuses.reduce((sum, o) => sum + o.totalCents, 0);
  const pending = statuses.filter((o) => o.status !== 'delivered').map((o) => o.orderId);
  return {
    total: \`$\${(totalCents / 100).toFixed(2)}\`,
    items: statuses.reduce((n, o) => n + o.items, 0),
    pending,
  };
}`,
    expect: { value: { total: '$107.98', items: 6, pending: ['A-1', 'A-2'] } },
  },
  {
    style: 'CSV text parsed with a header row, reduced per region, sorted, toFixed',
    program: `const csv = await files.read({ path: 'reports/sales.csv' });
const [header, ...lines] = csv.trim().split('\\n');
const columns = header.split(',');
const rows = lines.map((line) => {
  const values = line.split(',');
  return Object.fromEntries(columns.map((col, i) => [col, values[i]]));
});

const byRegion = rows.reduce<Record<string, { units: number; revenue: number }>>((acc, row) => {
  const entry = (acc[row.region] ??= { units: 0, revenue: 0 });
  entry.units += Number(row.units);
  entry.revenue += parseFloat(row.revenue);
  return acc;
}, {});

return Object.entries(byRegion)
  .sort(([, a], [, b]) => b.revenue - a.revenue)
  .map(([region, { units, revenue }]) => ({ region, units, revenue: revenue.toFixed(2) }));`,
    expect: {
      value: [
        { region: 'north', units: 215, revenue: '6450.50' },
        { region: 'south', units: 210, revenue: '6300.25' },
        { region: 'east', units: 40, revenue: '1200.00' },
      ],
    },
  },
  {
    style: 'plain JavaScript: CSV per month with ??=, a positional read, ending in a bare object',
    program: `const text = await files.read('reports/sales.csv');
const records = text
  .split(/\\r?\\n/)
  .slice(1)
  .filter(Boolean)
  .map((line) => {
    const [region, month, units, revenue] = line.split(',');
    return { region, month, units: +units, revenue: +revenue };
  });

const months = {};
for (const r of records) {
  months[r.month] ??= { orders: 0, units: 0, revenue: 0 };
  months[r.month].orders++;
  months[r.month].units += r.units;
  months[r.month].revenue = Math.round((months[r.month].revenue + r.revenue) * 100) / 100;
}
const best = Object.entries(months).sort((a, b) => b[1].revenue - a[1].revenue)[0][0];
({ months, best })`,
    expect: {
      value: {
        months: {
          '2026-09': { orders: 2, units: 200, revenue: 6000.5 },
          '2026-10': { orders: 3, units: 265, revenue: 7950.25 },
        },
        best: '2026-10',
      },
    },
  },
  {
    style: 'Markdown checkboxes parsed with matchAll and a multiline regex, grouped by owner',
    program: `const notes = await files.read({ path: 'notes/meeting.md' });
const taskPattern = /^- \\[( |x)\\] (.+?)(?: \\(@(\\w+)\\))?$/gm;
const tasks = [...notes.matchAll(taskPattern)].map((m) => ({
  done: m[1] === 'x',
  text: m[2],
  owner: m[3] ?? 'unassigned',
}));

const openByOwner: Record<string, string[]> = {};
for (const task of tasks.filter((t) => !t.done)) {
  (openByOwner[task.owner] ||= []).push(task.text);
}

return {
  total: tasks.length,
  done: tasks.filter((t) => t.done).map((t) => t.text),
  openByOwner,
};`,
    expect: {
      value: {
        total: 3,
        done: ['Ship the exporter'],
        openByOwner: { bo: ['Fix the watcher leak'], ana: ['Write release notes'] },
      },
    },
  },
  {
    style: 'arrow-wrapped: dates pulled from Markdown, UTC Date arithmetic, a Date in the result',
    program: `async () => {
  const md = await files.read({ path: 'notes/meeting.md' });
  const held = md.match(/^# .*?(\\d{4})-(\\d{2})-(\\d{2})/m);
  const next = md.match(/Next meeting: (\\d{4})-(\\d{2})-(\\d{2}) (\\d{2}):(\\d{2})/);
  if (!held || !next) throw new Error('could not find the meeting dates');

  const heldAt = new Date(Date.UTC(+held[1], +held[2] - 1, +held[3]));
  const [, y, mo, d, h, mi] = next.map(Number);
  const nextAt = new Date(Date.UTC(y, mo - 1, d, h, mi));
  const MS_PER_DAY = 24 * 60 * 60 * 1000;
  const reminderAt = new Date(nextAt.getTime() - MS_PER_DAY);

  return {
    held: heldAt.toISOString().slice(0, 10),
    next: nextAt,
    daysBetween: Math.floor((nextAt.getTime() - heldAt.getTime()) / MS_PER_DAY),
    reminder: reminderAt.toISOString(),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][nextAt.getUTCDay()],
  };
}`,
    expect: {
      value: {
        held: '2026-11-23',
        next: '2026-11-30T10:00:00.000Z',
        daysBetween: 7,
        reminder: '2026-11-29T10:00:00.000Z',
        weekday: 'Mon',
      },
    },
  },
  {
    style: 'JSON config read from a file, nested destructuring with defaults and a rename',
    program: `const raw = await files.read({ path: 'config/app.json' });
const config = JSON.parse(raw);
const {
  name,
  retries = 1,
  timeoutMs = 5000,
  features: { darkMode = false, export: exportEnabled = false, beta = false } = {},
} = config;

const enabled = Object.entries(config.features ?? {})
  .filter(([, on]) => on === true)
  .map(([feature]) => feature);

return { name, retries, timeoutMs, darkMode, exportEnabled, beta, enabled, keys: Object.keys(config).length };`,
    expect: {
      value: {
        name: 'kettle-shop',
        retries: 3,
        timeoutMs: 5000,
        darkMode: true,
        exportEnabled: false,
        beta: false,
        enabled: ['darkMode'],
        keys: 3,
      },
    },
  },
  {
    style: 'an interface, `as const` SKUs, JSON text per product, a padEnd/padStart table returned',
    program: `interface Product {
  sku: string;
  name: string;
  priceCents: number;
  stock: number;
}

const skus = ['SKU-1', 'SKU-2', 'SKU-3'] as const;
const products: Product[] = await Promise.all(
  skus.map(async (sku) => JSON.parse(await shop.product_json({ sku })) as Product),
);

const money = (cents: number): string => \`$\${(cents / 100).toFixed(2)}\`;
const lines: string[] = [
  \`\${'SKU'.padEnd(6)} \${'Name'.padEnd(8)} \${'Price'.padStart(7)} \${'Stock'.padStart(5)} \${'Value'.padStart(8)}\`,
  ...products.map((p) =>
    [
      p.sku.padEnd(6),
      p.name.padEnd(8),
      money(p.priceCents).padStart(7),
      String(p.stock).padStart(5),
      money(p.priceCents * p.stock).padStart(8),
    ].join(' '),
  ),
];
const total = products.reduce((sum, p) => sum + p.priceCents * p.stock, 0);
lines.push(\`Total inventory value: \${money(total)}\`);
return lines.join('\\n');`,
    expect: {
      value: [
        'SKU    Name       Price Stock    Value',
        'SKU-1  kettle    $24.99     4   $99.96',
        'SKU-2  teapot    $18.50     0    $0.00',
        'SKU-3  mug        $6.50    31  $201.50',
        'Total inventory value: $301.46',
      ].join('\n'),
    },
  },
  {
    style: 'prices extracted from fetched HTML with a global regex, destructured in for...of',
    program: `const page = await web.fetch({ url: 'https://example.org/pricing' });
if (page.status !== 200) throw new Error(\`pricing page returned \${page.status}\`);

const plans = [];
for (const [, plan, price] of page.body.matchAll(/<li>([^<:]+):\\s*\\$(\\d+(?:\\.\\d+)?)\\/month<\\/li>/g)) {
  plans.push({ plan, monthly: Number(price), yearly: Number(price) * 12 });
}
const custom = [...page.body.matchAll(/<li>([^<:]+): contact us<\\/li>/g)].map((m) => m[1]);
const title = page.body.match(/<title>(.*?)<\\/title>/i)?.[1];

return { title, plans, custom, cheapest: plans.sort((a, b) => a.monthly - b.monthly)[0].plan };`,
    expect: {
      value: {
        title: 'Pricing',
        plans: [
          { plan: 'Starter', monthly: 9, yearly: 108 },
          { plan: 'Team', monthly: 29, yearly: 348 },
        ],
        custom: ['Enterprise'],
        cheapest: 'Starter',
      },
    },
  },
  {
    style: 'arrow-wrapped link check: status === 404 collected, titles via optional chaining',
    program: `async () => {
  const urls = [
    'https://example.org/status',
    'https://example.org/pricing',
    'https://example.org/changelog',
  ];
  const checked = await Promise.all(urls.map((url) => web.fetch({ url })));
  const missing = checked.filter((r) => r.status === 404).map((r) => new URL(r.url).pathname);
  const live = checked
    .filter((r) => r.status === 200)
    .map((r) => ({
      path: new URL(r.url).pathname,
      title: r.body.match(/<title>([^<]*)<\\/title>/)?.[1] ?? null,
      words: r.body.replace(/<[^>]+>/g, ' ').split(/\\s+/).filter(Boolean).length,
    }));
  const lastIncident = checked[0].body.match(/Last incident: (\\d{4}-\\d{2}-\\d{2})/)?.[1];
  return { live, missing, lastIncident };
}`,
    expect: {
      value: {
        live: [
          { path: '/status', title: null, words: 6 },
          { path: '/pricing', title: 'Pricing', words: 9 },
        ],
        missing: ['/changelog'],
        lastIncident: '2026-11-12',
      },
    },
  },
  {
    style: 'a do...while pagination over nextCursor, then grouping by label with reduce',
    program: `type Issue = { id: number; title: string; state: string; labels: string[]; votes: number };

const all: Issue[] = [];
let cursor: string | null = null;
let pages = 0;
do {
  const page = await issues.list({ state: 'all', limit: 3, ...(cursor ? { cursor } : {}) });
  all.push(...page.items);
  cursor = page.nextCursor;
  pages++;
} while (cursor !== null);

const byLabel = all.reduce<Record<string, number[]>>((groups, issue) => {
  for (const label of issue.labels) {
    groups[label] = [...(groups[label] ?? []), issue.id];
  }
  return groups;
}, {});

console.log(\`Read \${all.length} issues over \${pages} pages\`);
return { pages, total: all.length, byLabel };`,
    expect: {
      value: {
        pages: 3,
        total: 7,
        byLabel: { bug: [101, 104, 106], feature: [102, 105], docs: [103], perf: [104], i18n: [107] },
      },
    },
  },
  {
    style: 'a labelled while loop over pages left early with break, ending in a conditional expression',
    program: `let cursor: string | undefined = undefined;
let pagesRead = 0;
let match: { id: number; title: string } | undefined;

paging: while (true) {
  const page = await issues.list({ state: 'open', limit: 2, cursor });
  pagesRead++;
  for (const issue of page.items) {
    if (/csv/i.test(issue.title)) {
      match = issue;
      break paging;
    }
  }
  if (!page.nextCursor) break;
  cursor = page.nextCursor;
}

match ? { id: match.id, title: match.title, pagesRead } : { id: null, pagesRead }`,
    expect: { value: { id: 105, title: 'Export to CSV', pagesRead: 2 } },
  },
  {
    style: 'emails sent in a loop to customers over a spend threshold, message ids returned',
    program: `const customers = await crm.find_customers({ minSpendCents: 80_000 });
console.log(\`Found \${customers.length} high-value customers\`);

const messageIds: string[] = [];
for (const customer of customers) {
  const firstName = customer.name.split(' ')[0];
  const { id } = await email.send({
    to: customer.email,
    subject: \`Thank you, \${firstName}!\`,
    body: \`Hi \${firstName},\\n\\nThanks for being with us since \${customer.since.slice(0, 4)}. Here is 15% off your next order.\\n\\nThe Kettle Shop team\`,
  });
  messageIds.push(id);
  console.log(\`Sent to \${customer.email}: \${id}\`);
}
return messageIds;`,
    expect: { value: ['msg-ana@example.org', 'msg-chi@example.org', 'msg-dag@example.org'] },
  },
  {
    style: 'try/catch per customer collecting errors while chaining weather and email calls',
    program: `const capitals: Record<string, string> = { BR: 'Brasília', NO: 'Oslo', VN: 'Hanoi' };
const customers = await crm.find_customers({});
const sent: string[] = [];
const errors: { customer: string; error: string }[] = [];

for (const c of customers) {
  try {
    const city = capitals[c.country];
    if (!city) throw new Error(\`no capital known for \${c.country}\`);
    const w = await tools.get_weather({ city });
    const subject = w.temp < 10 ? 'Stay warm: kettles 10% off' : 'Iced tea season is here';
    const res = await email.send({ to: c.email, subject, body: \`Hi \${c.name}, it is \${w.temp}°C in \${city} today.\` });
    sent.push(res.id);
  } catch (e) {
    errors.push({ customer: c.id, error: (e as Error).message });
  }
}
return { sent, errors };`,
    expect: {
      value: {
        sent: ['msg-bo@example.org', 'msg-chi@example.org', 'msg-dag@example.org'],
        errors: [{ customer: 'c1', error: expect.stringContaining('no weather station near Brasília') }],
      },
    },
  },
  {
    style: 'Promise.allSettled over cities some services do not cover, ending in a bare object',
    program: `const cities = ['Oslo', 'Reykjavik', 'Lima', 'Cairo', 'Hanoi'];
const settled = await Promise.allSettled(cities.map((city) => tools.get_weather({ city })));

const ok = [];
const failed = [];
settled.forEach((result, i) => {
  if (result.status === 'fulfilled') ok.push(\`\${result.value.city} \${result.value.temp}°C\`);
  else failed.push(cities[i]);
});
console.log(\`\${ok.length}/\${cities.length} cities answered\`);

({ ok, failed, coverage: \`\${Math.round((ok.length / cities.length) * 100)}%\` })`,
    expect: { value: { ok: ['Oslo 3°C', 'Lima 22°C', 'Hanoi 30°C'], failed: ['Reykjavik', 'Cairo'], coverage: '60%' } },
  },
  {
    style: 'an AbortController timeout raced against a fan-out, cleared in finally',
    program: `const controller = new AbortController();
const timer = setTimeout(() => controller.abort(new Error('search took too long')), 5000);
const timedOut = new Promise<never>((_, reject) => {
  controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
});

try {
  const queries = ['electric kettle', 'gooseneck kettle'];
  const results = await Promise.race([
    Promise.all(queries.map((query) => search.web({ query, limit: 2 }))),
    timedOut,
  ]);
  return results.flat().map((r) => r.url);
} finally {
  clearTimeout(timer);
}`,
    expect: {
      value: [
        'https://example.org/electric-kettle/1',
        'https://example.org/electric-kettle/2',
        'https://example.org/gooseneck-kettle/1',
        'https://example.org/gooseneck-kettle/2',
      ],
    },
  },
  {
    style: 'a small class with a private Map, a getter and a summary method',
    program: `class Cart {
  private lines = new Map<string, { name: string; unitCents: number; qty: number }>();

  add(product: { sku: string; name: string; priceCents: number; stock: number }, qty: number): boolean {
    if (product.stock < qty) {
      console.log(\`Skipping \${product.name}: only \${product.stock} in stock\`);
      return false;
    }
    const existing = this.lines.get(product.sku);
    this.lines.set(product.sku, {
      name: product.name,
      unitCents: product.priceCents,
      qty: (existing?.qty ?? 0) + qty,
    });
    return true;
  }

  get subtotalCents(): number {
    let total = 0;
    for (const line of this.lines.values()) total += line.unitCents * line.qty;
    return total;
  }

  summary(discountPct = 0) {
    const discount = Math.round((this.subtotalCents * discountPct) / 100);
    return {
      lines: [...this.lines.values()].map((l) => \`\${l.qty} x \${l.name}\`),
      subtotal: this.subtotalCents / 100,
      discount: discount / 100,
      total: (this.subtotalCents - discount) / 100,
    };
  }
}

const cart = new Cart();
const wanted: Array<[string, number]> = [['SKU-1', 1], ['SKU-2', 2], ['SKU-3', 4], ['SKU-1', 1]];
for (const [sku, qty] of wanted) {
  const product = JSON.parse(await shop.product_json({ sku }));
  cart.add(product, qty);
}
return cart.summary(10);`,
    expect: { value: { lines: ['2 x kettle', '4 x mug'], subtotal: 75.98, discount: 7.6, total: 68.38 } },
  },
  {
    style: 'a JSDoc-typed helper in plain JavaScript calling the calculator positionally',
    program: `/**
 * Mean of a list of numbers, computed with the calculator tools.
 * @param {number[]} values
 * @returns {Promise<number>}
 */
async function mean(values) {
  let total = 0;
  for (const v of values) total = await calculator.add(total, v);
  return calculator.divide(total, values.length);
}

const { items } = await issues.list({ state: 'open', limit: 50 });
const avg = await mean(items.map((i) => i.votes));
const rounded = Math.round(avg * 10) / 10;
console.log(\`Average votes on open issues: \${rounded}\`);
return {
  count: items.length,
  average: rounded,
  aboveAverage: items.filter((i) => i.votes > avg).map((i) => i.id),
};`,
    expect: { value: { count: 5, average: 16, aboveAverage: [102, 105] } },
  },
  {
    style: 'a generic fetchAll<T> pager, an `as const` tuple and a derived union type',
    program: `interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

async function fetchAll<T>(fetchPage: (cursor?: string) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  while (true) {
    const page = await fetchPage(cursor);
    out.push(...page.items);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
}

const STATES = ['open', 'closed'] as const;
type State = (typeof STATES)[number];
type Issue = { id: number; votes: number; state: State };

const counts = {} as Record<State, { count: number; votes: number }>;
for (const state of STATES) {
  const list = await fetchAll<Issue>((cursor) => issues.list({ state, cursor, limit: 2 }));
  counts[state] = { count: list.length, votes: list.reduce((s, i) => s + i.votes, 0) };
}
return counts;`,
    expect: { value: { open: { count: 5, votes: 80 }, closed: { count: 2, votes: 10 } } },
  },
  {
    style: 'arrow-wrapped: duplicate queries removed with a Set, results flattened and spread back',
    program: `async () => {
  const queries = ['Best tea kettle', 'tea kettle', 'best tea kettle ', 'kettle descaling'];
  const unique = [...new Set(queries.map((q) => q.trim().toLowerCase()))];
  const results = (await Promise.all(unique.map((query) => search.web({ query, limit: 2 })))).flat();
  const urls = [...new Set(results.map((r) => r.url))];
  const topics = [...new Set(urls.map((u) => new URL(u).pathname.split('/')[1]))].sort();
  return { queriesRun: unique.length, urls: urls.length, topics };
}`,
    expect: { value: { queriesRun: 3, urls: 6, topics: ['best-tea-kettle', 'kettle-descaling', 'tea-kettle'] } },
  },
  {
    style: 'customer tenure with explicit UTC dates, whole years and the next anniversary',
    program: `const asOf = new Date(Date.UTC(2026, 10, 30)); // 2026-11-30
const DAY = 86_400_000;
const customers = await crm.find_customers();

const tenure = customers
  .map((c) => {
    const since = new Date(\`\${c.since}T00:00:00Z\`);
    const days = Math.floor((asOf.getTime() - since.getTime()) / DAY);
    let years = asOf.getUTCFullYear() - since.getUTCFullYear();
    const beforeAnniversary =
      asOf.getUTCMonth() < since.getUTCMonth() ||
      (asOf.getUTCMonth() === since.getUTCMonth() && asOf.getUTCDate() < since.getUTCDate());
    if (beforeAnniversary) years--;
    const next = new Date(Date.UTC(asOf.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate()));
    if (next < asOf) next.setUTCFullYear(next.getUTCFullYear() + 1);
    return {
      name: c.name,
      days,
      years,
      tier: years >= 5 ? 'gold' : years >= 2 ? 'silver' : 'new',
      nextAnniversary: next.toISOString().slice(0, 10),
    };
  })
  .sort((a, b) => b.days - a.days);

return tenure;`,
    expect: {
      value: [
        { name: 'Dag Moe', days: 2585, years: 7, tier: 'gold', nextAnniversary: '2027-11-02' },
        { name: 'Ana Lima', days: 2097, years: 5, tier: 'gold', nextAnniversary: '2027-03-04' },
        { name: 'Chi Tran', days: 1400, years: 3, tier: 'silver', nextAnniversary: '2027-01-30' },
        { name: 'Bo Berg', days: 499, years: 1, tier: 'new', nextAnniversary: '2027-07-19' },
      ],
    },
  },
  {
    style: 'a bare tool name in a loop, a text table logged and also the final bare expression',
    program: `const cities = ['Oslo', 'Lima', 'Nairobi', 'Hanoi'];
const rows = [];
for (const city of cities) {
  const w = await get_weather({ city });
  rows.push([w.city, \`\${w.temp}°C\`, w.conditions]);
}

const header = ['City', 'Temp', 'Conditions'];
const widths = header.map((h, col) => Math.max(h.length, ...rows.map((r) => r[col].length)));
const fmt = (r) => \`\${r[0].padEnd(widths[0])} | \${r[1].padStart(widths[1])} | \${r[2].padEnd(widths[2])}\`.trimEnd();
const table = [fmt(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(fmt)].join('\\n');
console.log(table);
table`,
    expect: {
      value: [
        'City    | Temp | Conditions',
        '--------+------+-----------',
        'Oslo    |  3°C | snow',
        'Lima    | 22°C | cloudy',
        'Nairobi | 25°C | sunny',
        'Hanoi   | 30°C | rain',
      ].join('\n'),
    },
  },
  {
    style: 'arrow-wrapped: three different tools at once, a Markdown report string returned',
    program: `async () => {
  const [open, meetingNotes, status] = await Promise.all([
    issues.list({ state: 'open', limit: 50 }),
    files.read({ path: 'notes/meeting.md' }),
    web.fetch({ url: 'https://example.org/status' }),
  ]);

  const top = [...open.items].sort((a, b) => b.votes - a.votes).slice(0, 3);
  const pendingTasks = meetingNotes
    .split('\\n')
    .filter((line) => line.startsWith('- [ ]'))
    .map((line) => line.slice(6));
  const statusText = status.body.replace(/<[^>]*>/g, '').trim();

  let report = '# Weekly status\\n\\n';
  report += '## Top open issues\\n\\n';
  report += top.map((issue, i) => \`\${i + 1}. #\${issue.id} \${issue.title} (\${issue.votes} votes)\`).join('\\n');
  report += '\\n\\n## Pending action items\\n\\n';
  report += pendingTasks.map((t) => \`- \${t}\`).join('\\n');
  report += \`\\n\\n## Service status\\n\\n\${statusText}\\n\`;
  return report;
}`,
    expect: {
      value:
        '# Weekly status\n\n## Top open issues\n\n1. #102 Dark mode (40 votes)\n2. #105 Export to CSV (18 votes)\n3. #101 Crash on empty config (12 votes)\n\n## Pending action items\n\n- Fix the watcher leak (@bo)\n- Write release notes (@ana)\n\n## Service status\n\nAll systems operational. Last incident: 2026-11-12.\n',
    },
  },
  {
    style: 'markdown-fenced: customers sorted with localeCompare on two keys, surname via at(-1)!',
    program: `\`\`\`typescript
const customers = await crm.find_customers();
const surname = (name: string) => name.split(' ').at(-1)!;
const sorted = [...customers].sort(
  (a, b) => a.country.localeCompare(b.country) || surname(a.name).localeCompare(surname(b.name)),
);
return sorted.map(({ name, country, spendCents }) => ({ name, country, spend: spendCents / 100 }));
\`\`\``,
    expect: {
      value: [
        { name: 'Ana Lima', country: 'BR', spend: 1250 },
        { name: 'Bo Berg', country: 'NO', spend: 45 },
        { name: 'Dag Moe', country: 'NO', spend: 2300 },
        { name: 'Chi Tran', country: 'VN', spend: 880 },
      ],
    },
  },
  {
    style: 'a worker pool of two built with Array.from, a shared queue and shift()!',
    program: `const ids = Array.from({ length: 7 }, (_, i) => 101 + i);
const queue = [...ids];
const results: Record<number, string> = {};
const CONCURRENCY = 2;
let inFlight = 0;
let maxInFlight = 0;

async function worker(workerId: number): Promise<void> {
  while (queue.length > 0) {
    const id = queue.shift()!;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const issue = await issues.get({ id });
      results[id] = issue.state;
      console.log(\`worker \${workerId}: #\${id} is \${issue.state}\`);
    } finally {
      inFlight--;
    }
  }
}

await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => worker(i + 1)));
const closed = Object.entries(results)
  .filter(([, state]) => state === 'closed')
  .map(([id]) => Number(id));
return { processed: Object.keys(results).length, maxInFlight, closed };`,
    expect: { value: { processed: 7, maxInFlight: 2, closed: [103, 106] } },
  },
  {
    style: 'currency conversion with rounding to cents, `as const` rates, ending in a bare array',
    program: `const RATES = { EUR: 0.92, GBP: 0.79, JPY: 151.37 } as const;
const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

const prices = [];
for (const sku of ['SKU-1', 'SKU-2', 'SKU-3']) {
  const p = JSON.parse(await shop.product_json({ sku }));
  const usd = p.priceCents / 100;
  prices.push({
    name: p.name,
    usd,
    eur: round2(usd * RATES.EUR),
    gbp: round2(usd * RATES.GBP),
    jpy: Math.round(usd * RATES.JPY),
  });
}
prices`,
    expect: {
      value: [
        { name: 'kettle', usd: 24.99, eur: 22.99, gbp: 19.74, jpy: 3783 },
        { name: 'teapot', usd: 18.5, eur: 17.02, gbp: 14.62, jpy: 2800 },
        { name: 'mug', usd: 6.5, eur: 5.98, gbp: 5.14, jpy: 984 },
      ],
    },
  },
  {
    style: 'a plain script with bare tool names, JSON.stringify logged, ending in a bare name',
    program: `// Suggest the priciest in-stock product within 5% of each Norwegian customer's lifetime spend
const customers = await find_customers({ country: 'NO' });
const catalog = await Promise.all(
  ['SKU-1', 'SKU-2', 'SKU-3'].map(async (sku) => JSON.parse(await product_json({ sku }))),
);
const inStock = catalog.filter((p) => p.stock > 0);

const picks = customers.map((c) => {
  const budget = c.spendCents * 0.05;
  const affordable = inStock
    .filter((p) => p.priceCents <= budget)
    .sort((a, b) => b.priceCents - a.priceCents);
  return { customer: c.name, pick: affordable[0]?.name ?? null, budget: Math.floor(budget) };
});

console.log(JSON.stringify(picks, null, 2));
picks`,
    expect: {
      value: [
        { customer: 'Bo Berg', pick: null, budget: 225 },
        { customer: 'Dag Moe', pick: 'kettle', budget: 11500 },
      ],
    },
  },
  {
    style: 'files listed with no argument, each read and described by a switch on its extension',
    program: `const paths: string[] = await files.list();
const summary = [];
for (const path of paths) {
  const text = await files.read({ path });
  const ext = path.split('.').pop();
  let detail: string;
  switch (ext) {
    case 'csv':
      detail = \`\${text.trim().split('\\n').length - 1} rows\`;
      break;
    case 'md':
      detail = \`\${(text.match(/^#+ /gm) ?? []).length} headings\`;
      break;
    case 'json':
      detail = \`\${Object.keys(JSON.parse(text)).length} keys\`;
      break;
    default:
      detail = 'unknown type';
  }
  summary.push({ path, lines: text.split('\\n').filter((l) => l.length > 0).length, detail });
}
return summary;`,
    expect: {
      value: [
        { path: 'config/app.json', lines: 1, detail: '3 keys' },
        { path: 'notes/meeting.md', lines: 5, detail: '1 headings' },
        { path: 'reports/sales.csv', lines: 6, detail: '5 rows' },
      ],
    },
  },
];
