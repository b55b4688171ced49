// Programs in the original form of the public code-mode peers, over the tools of ./peer-tools.ts:
// Cloudflare's code mode (`codemode.<tool>(…)` inside an async arrow, as its README and generated
// prompts show), Anthropic's "code execution with MCP" (`import * as gdrive from
// './servers/google-drive'`, results filtered in the program and printed) and code mode for
// Vercel's AI SDK (a script body calling the AI SDK tools as bare async functions by their keys,
// top-level `await` and `return`, as the tool-scripting and Zapcode integrations show it), and the
// plain Node scripts of Vercel's AI code runner guide (the AI SDK writes them, Vercel Sandbox runs
// them, their output is the answer). Each states its value
// (or what it prints), its log lines and the calls it makes, by the namespace that recorded them.
import { expect } from 'vitest';
import type { CompatibilityCase } from './suite.js';

export const cloudflarePrograms: readonly CompatibilityCase[] = [
  {
    style: "Cloudflare code mode: the README's program, weather then a conditional email",
    program: `async () => {
  const weather = await codemode.getWeather({ location: "London" });
  if (weather.includes("sunny")) {
    await codemode.sendEmail({
      to: "team@example.com",
      subject: "Nice day!",
      body: \`It's \${weather}\`
    });
  }
  return { weather, notified: true };
};`,
    expect: { value: { weather: 'Weather in London: 72°F, sunny', notified: true } },
    logs: [],
    calls: ['tools.getWeather', 'tools.sendEmail'],
  },
  {
    style: 'Cloudflare code mode: Promise.all over locations, one failing, settled',
    program: `async () => {
  const locations = ["London", "Paris", "Atlantis"];
  const results = await Promise.allSettled(locations.map((location) => codemode.getWeather({ location })));
  const report = results.map((result, i) => result.status === "fulfilled" ? result.value : \`\${locations[i]}: unavailable\`);
  console.log(report.join("\\n"));
  return report.length;
}`,
    expect: { value: 3 },
    logs: ['Weather in London: 72°F, sunny', 'Weather in Paris: 64°F, cloudy', 'Atlantis: unavailable'],
    calls: ['tools.getWeather', 'tools.getWeather', 'tools.getWeather'],
  },
  {
    style: 'Cloudflare code mode: the task manager example, create, list, complete',
    program: `async () => {
  const created = await codemode.createTask({ title: "Book venue", priority: "high" });
  console.log("Created task", created.id);
  const open = await codemode.listTasks({ status: "todo" });
  const urgent = open.filter((task) => task.priority === "high");
  for (const task of urgent) {
    await codemode.completeTask({ id: task.id });
  }
  const remaining = await codemode.listTasks({ status: "todo" });
  return { completed: urgent.map((task) => task.title), remaining: remaining.map((task) => task.title) };
}`,
    expect: {
      value: { completed: ['Write release notes', 'Book venue'], remaining: ['Update logo'] },
    },
    logs: ['Created task 4'],
    calls: [
      'tools.createTask',
      'tools.listTasks',
      'tools.completeTask',
      'tools.completeTask',
      'tools.listTasks',
    ],
  },
  {
    style: 'Cloudflare code mode: the Promise.allSettled results returned as they are',
    program: `async () => {
  return await Promise.allSettled([
    codemode.getWeather({ location: "Oslo" }),
    codemode.getWeather({ location: "Atlantis" }),
  ]);
}`,
    expect: {
      value: [
        { status: 'fulfilled', value: 'Weather in Oslo: 38°F, snow' },
        { status: 'rejected', reason: { error: expect.stringMatching(/^Error: .*no forecast for Atlantis/) } },
      ],
    },
    logs: [],
    calls: ['tools.getWeather', 'tools.getWeather'],
  },
  {
    style: 'Cloudflare code mode: tasks grouped by status with Object.groupBy',
    program: `async () => {
  const tasks = await codemode.listTasks({});
  const byStatus = Object.groupBy(tasks, (task) => task.status);
  return Object.fromEntries(Object.entries(byStatus).map(([status, list]) => [status, list.length]));
}`,
    expect: { value: { todo: 2, done: 1 } },
    logs: [],
    calls: ['tools.listTasks'],
  },
  {
    style: "Cloudflare code mode: an MCP server's tool by its own name, drafts skipped with an iterator helper",
    program: `async () => {
  const pulls = await codemode.list_pull_requests({ owner: "cloudflare", repo: "agents", state: "open" });
  const ready = pulls.values().filter((pull) => !pull.draft).map((pull) => \`#\${pull.number} \${pull.title}\`).toArray();
  console.log(\`\${ready.length} ready for review\`);
  return ready;
}`,
    expect: { value: ['#41 Add codemode alias', '#43 Fix typo'] },
    logs: ['2 ready for review'],
    calls: ['github.list_pull_requests'],
  },
  {
    style: "Cloudflare code mode: the flat <server>_<tool> spelling of an MCP server's tool",
    program: `async () => {
  const issue = await codemode.github_create_issue({ owner: "cloudflare", repo: "agents", title: "Flaky test in CI" });
  await codemode.sendEmail({ to: "oncall@example.com", subject: \`Issue #\${issue.number}\`, body: issue.title });
  return issue.number;
}`,
    expect: { value: 99 },
    logs: [],
    calls: ['github.create_issue', 'tools.sendEmail'],
  },
  {
    style: 'Cloudflare code mode: a fenced arrow with a per-location try/catch',
    program: `\`\`\`js
async () => {
  const forecasts = {};
  for (const location of ["Oslo", "Narnia"]) {
    try {
      forecasts[location] = await codemode.getWeather({ location });
    } catch (error) {
      console.log(\`Skipping \${location}: \${error.message}\`);
    }
  }
  return forecasts;
}
\`\`\``,
    expect: { value: { Oslo: 'Weather in Oslo: 38°F, snow' } },
    logs: ['Skipping Narnia: no forecast for Narnia'],
    calls: ['tools.getWeather', 'tools.getWeather'],
  },
  {
    style: 'Cloudflare code mode: connector namespaces beside codemode, and Promise.withResolvers',
    program: `async () => {
  const { promise, resolve } = Promise.withResolvers();
  setTimeout(() => resolve("timer fired"), 5);
  const [pulls, note] = await Promise.all([github.list_pull_requests({ owner: "cloudflare", repo: "agents" }), promise]);
  await codemode.sendEmail({ to: "team@example.com", subject: "PRs", body: \`\${pulls.length} open (\${note})\` });
  return pulls.length;
}`,
    expect: { value: 3 },
    logs: [],
    calls: ['github.list_pull_requests', 'tools.sendEmail'],
  },
  {
    style: 'Cloudflare code mode: a no-argument listTasks(), the newest open task found with findLast',
    program: `async () => {
  const tasks = await codemode.listTasks();
  const newestOpen = tasks.findLast((task) => task.status === "todo");
  const sorted = tasks.toSorted((a, b) => a.title.localeCompare(b.title)).map((task) => task.title);
  return { newestOpen: newestOpen?.title ?? null, sorted };
}`,
    expect: {
      value: {
        newestOpen: 'Update logo',
        sorted: ['Fix flaky test', 'Update logo', 'Write release notes'],
      },
    },
    logs: [],
    calls: ['tools.listTasks'],
  },
  {
    style: 'Cloudflare code mode: a non-async arrow returning a promise chain',
    program: `() => codemode.getWeather({ location: "Paris" }).then((report) => report.split(": ")[1].toUpperCase())`,
    expect: { value: '64°F, CLOUDY' },
    logs: [],
    calls: ['tools.getWeather'],
  },
  {
    style: "Cloudflare code mode: a tool's error caught and returned as the answer",
    program: `async () => {
  try {
    await codemode.completeTask({ id: 42 });
    return { ok: true };
  } catch (error) {
    console.error("completeTask failed:", error.message);
    return { ok: false, error: error.message };
  }
}`,
    expect: { value: { ok: false, error: expect.stringContaining('no task 42') } },
    logs: [expect.stringContaining('completeTask failed: ')],
    calls: ['tools.completeTask'],
  },
  {
    style: 'Cloudflare code mode: tasks created in parallel with Promise.all, then counted by priority',
    program: `async () => {
  const titles = ["Draft agenda", "Order snacks", "Send invites"];
  const created = await Promise.all(
    titles.map((title, index) => codemode.createTask({ title, priority: index === 0 ? "high" : "low" }))
  );
  console.log(\`created \${created.length} tasks\`);
  const all = await codemode.listTasks({ status: "todo" });
  const counts = {};
  for (const task of all) counts[task.priority] = (counts[task.priority] ?? 0) + 1;
  return counts;
}`,
    expect: { value: { high: 2, low: 3 } },
    logs: ['created 3 tasks'],
    calls: ['tools.createTask', 'tools.createTask', 'tools.createTask', 'tools.listTasks'],
  },
  {
    style: "Cloudflare code mode: labels of an MCP server's pull requests merged with the ES2025 Set methods",
    program: `async () => {
  const pulls = await codemode.list_pull_requests({ owner: "cloudflare", repo: "agents", state: "all" });
  const ready = new Set(pulls.filter((pull) => !pull.draft).flatMap((pull) => pull.labels));
  const drafts = new Set(pulls.filter((pull) => pull.draft).flatMap((pull) => pull.labels));
  return {
    everywhere: [...ready.intersection(drafts)],
    readyOnly: [...ready.difference(drafts)],
    all: [...ready.union(drafts)].sort(),
  };
}`,
    expect: { value: { everywhere: ['feature'], readyOnly: ['docs'], all: ['docs', 'feature'] } },
    logs: [],
    calls: ['github.list_pull_requests'],
  },
  {
    style: 'Cloudflare code mode: a typed arrow with an interface, weather for the user and an email',
    program: `\`\`\`typescript
interface Forecast { location: string; report: string }

async (): Promise<Forecast[]> => {
  const locations: string[] = ["London", "Oslo"];
  const forecasts: Forecast[] = [];
  for (const location of locations) {
    forecasts.push({ location, report: await codemode.getWeather({ location }) });
  }
  const cold = forecasts.filter((f) => f.report.includes("snow"));
  if (cold.length > 0) {
    await codemode.sendEmail({ to: "travel@example.com", subject: "Pack a coat", body: cold.map((f) => f.location).join(", ") });
  }
  return forecasts;
}
\`\`\``,
    expect: {
      value: [
        { location: 'London', report: 'Weather in London: 72°F, sunny' },
        { location: 'Oslo', report: 'Weather in Oslo: 38°F, snow' },
      ],
    },
    logs: [],
    calls: ['tools.getWeather', 'tools.getWeather', 'tools.sendEmail'],
  },
  {
    style: "Cloudflare code mode: the docs' multi-server orchestration, fs, db and tasks servers in one arrow",
    program: `async () => {
  const entries = await codemode.fs_list_files({ path: "/projects" });
  const projects = entries.filter((entry) => entry.type === "directory");
  const created = [];
  for (const project of projects) {
    const records = await codemode.db_query({
      query: "SELECT * FROM projects WHERE name = ?",
      params: [project.name],
    });
    if (records.length === 0) {
      const task = await codemode.tasks_create({ title: \`Register \${project.name}\`, priority: "high" });
      created.push(task.id);
    }
  }
  return { projects: projects.length, tasksCreated: created };
}`,
    expect: { value: { projects: 2, tasksCreated: ['T-100'] } },
    logs: [],
    calls: ['fs.list_files', 'db.query', 'tasks.create', 'db.query'],
  },
  {
    style: "Cloudflare code mode: the Cloudflare API server's execute, zones then DNS records through cloudflare.request",
    program: `async () => {
  const zones = await cloudflare.request({ method: "GET", path: "/zones" });
  const zone = zones.result.find((z) => z.name === "example.com");
  const records = await cloudflare.request({ method: "GET", path: \`/zones/\${zone.id}/dns_records\` });
  return records.result.map((r) => ({ name: r.name, type: r.type, content: r.content }));
}`,
    expect: {
      value: [
        { name: 'example.com', type: 'A', content: '192.0.2.1' },
        { name: 'www.example.com', type: 'CNAME', content: 'example.com' },
        { name: 'example.com', type: 'MX', content: 'mail.example.com' },
      ],
    },
    logs: [],
    calls: ['cloudflare.request', 'cloudflare.request'],
  },
  {
    style: "Cloudflare code mode: the Cloudflare API's pages walked with result_info until the last one",
    program: `async () => {
  const active = [];
  let page = 1;
  while (true) {
    const response = await cloudflare.request({ method: "GET", path: "/zones", query: { page, per_page: 2 } });
    for (const zone of response.result) {
      if (zone.status === "active") active.push(zone.name);
    }
    if (page >= response.result_info.total_pages) break;
    page++;
  }
  return active;
}`,
    expect: { value: ['example.com', 'example.net'] },
    logs: [],
    calls: ['cloudflare.request', 'cloudflare.request'],
  },
  {
    style: 'Cloudflare code mode: a DNS record created when missing, an API error caught by its code',
    program: `async () => {
  const { result: records } = await cloudflare.request({ method: "GET", path: "/zones/z1/dns_records" });
  const exists = records.some((r) => r.type === "TXT" && r.name === "_verify.example.com");
  if (!exists) {
    const created = await cloudflare.request({
      method: "POST",
      path: "/zones/z1/dns_records",
      body: { type: "TXT", name: "_verify.example.com", content: "token-123", ttl: 300 },
    });
    console.log(\`created \${created.result.id}\`);
  }
  try {
    await cloudflare.request({ method: "GET", path: "/zones/z9/dns_records" });
  } catch (error) {
    console.log("z9:", error.message.includes("7003") ? "not found" : error.message);
  }
  return exists ? "already there" : "created";
}`,
    expect: { value: 'created' },
    logs: ['created r4', 'z9: not found'],
    calls: ['cloudflare.request', 'cloudflare.request', 'cloudflare.request'],
  },
  {
    style: "Cloudflare code mode: an MCP tool named list-keys by its sanitized name, expired keys deleted with kv_delete",
    program: `async () => {
  const now = 1765000000;
  const keys = await codemode.kv_list_keys({ prefix: "session:" });
  const expired = keys.filter((key) => key.expiration !== 0 && key.expiration < now);
  for (const key of expired) {
    await codemode.kv_delete({ key: key.name });
  }
  return { deleted: expired.map((key) => key.name), kept: keys.length - expired.length };
}`,
    expect: { value: { deleted: ['session:a1', 'session:c3'], kept: 1 } },
    logs: [],
    // The ledger names a call by its binding: `list-keys` is bound as `list_keys`, `delete` as `delete_` for now.
    calls: ['kv.list_keys', expect.stringMatching(/^kv\.delete_?$/), expect.stringMatching(/^kv\.delete_?$/)],
  },
  {
    style: "Cloudflare code mode: a tool named delete called as delete_, the name Cloudflare's sanitizer gives it",
    program: `async () => {
  const result = await codemode.delete_({ key: "config:theme" });
  const left = await codemode.kv_list_keys({});
  return { deleted: result.deleted, left: left.length };
}`,
    expect: { value: { deleted: true, left: 3 } },
    logs: [],
    calls: [expect.stringMatching(/^kv\.delete_?$/), 'kv.list_keys'],
  },
  {
    style: 'Cloudflare code mode: a tool call raced against a timeout of its own',
    program: `async () => {
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), 2000));
  try {
    const weather = await Promise.race([codemode.getWeather({ location: "Oslo" }), timeout]);
    return { weather };
  } catch (error) {
    return { error: error.message };
  }
}`,
    expect: { value: { weather: 'Weather in Oslo: 38°F, snow' } },
    logs: [],
    calls: ['tools.getWeather'],
  },
  {
    style: 'Cloudflare code mode: the tools destructured from codemode, then called as plain functions',
    program: `async () => {
  const { getWeather, sendEmail } = codemode;
  const weather = await getWeather({ location: "Paris" });
  await sendEmail({ to: "team@example.com", subject: "Paris today", body: weather });
  return weather;
}`,
    expect: { value: 'Weather in Paris: 64°F, cloudy' },
    logs: [],
    calls: ['tools.getWeather', 'tools.sendEmail'],
  },
  {
    style: 'Cloudflare code mode: TypeScript with as const and satisfies around a Promise.all',
    program: `async () => {
  const locations = ["London", "Paris"] as const;
  const reports = await Promise.all(locations.map((location) => codemode.getWeather({ location })));
  const summary = {
    count: reports.length,
    sunny: reports.filter((report) => report.includes("sunny")).length,
  } satisfies Record<string, number>;
  return summary;
}`,
    expect: { value: { count: 2, sunny: 1 } },
    logs: [],
    calls: ['tools.getWeather', 'tools.getWeather'],
  },
];

export const anthropicPrograms: readonly CompatibilityCase[] = [
  {
    style: "Anthropic MCP code execution: the article's transcript from Google Drive into Salesforce",
    program: `// Read transcript from Google Docs and add to Salesforce prospect
import * as gdrive from './servers/google-drive';
import * as salesforce from './servers/salesforce';

const transcript = (await gdrive.getDocument({ documentId: 'abc123' })).content;
await salesforce.updateRecord({
  objectType: 'SalesMeeting',
  recordId: '00Q5f000001abcXYZ',
  data: { Notes: transcript }
});`,
    expect: { value: { id: '00Q5f000001abcXYZ', success: true } },
    logs: [],
    calls: ['google_drive.getDocument', 'salesforce.updateRecord'],
  },
  {
    style: "Anthropic MCP code execution: the article's sheet filtered in the program, five rows logged",
    program: `import * as gdrive from './servers/google-drive';

const allRows = await gdrive.getSheet({ sheetId: 'abc123' });
const pendingOrders = allRows.filter(row => row["Status"] === 'pending');
console.log(\`Found \${pendingOrders.length} pending orders\`);
console.log(pendingOrders.slice(0, 5).map(row => row.orderId)); // Only log first 5 for review`,
    expect: { printed: ['Found 3 pending orders', "[ 'A-1', 'A-3', 'A-4' ]"] },
    calls: ['google_drive.getSheet'],
  },
  {
    style: "Anthropic MCP code execution: the article's polling loop for a Slack message",
    program: `import * as slack from './servers/slack';

let found = false;
while (!found) {
  const messages = await slack.getChannelHistory({ channel: 'C123456' });
  found = messages.some(m => m.text.includes('deployment complete'));
  if (!found) await new Promise(r => setTimeout(r, 5000));
}
console.log('Deployment notification received');`,
    expect: { printed: ['Deployment notification received'] },
    calls: ['slack.getChannelHistory'],
  },
  {
    style: "Anthropic MCP code execution: the article's private data flowing from a sheet to Salesforce",
    program: `import * as gdrive from './servers/google-drive';
import * as salesforce from './servers/salesforce';

const leads = await salesforce.query({ query: 'SELECT Id, Email, Phone, Name FROM Lead LIMIT 1000' });
for (const lead of leads) {
  await salesforce.updateRecord({
    objectType: 'Lead',
    recordId: lead.Id,
    data: { Email: lead.Email, Phone: lead.Phone, Name: lead.Name }
  });
}
console.log(\`Updated \${leads.length} leads\`);`,
    expect: { printed: ['Updated 2 leads'] },
    calls: ['salesforce.query', 'salesforce.updateRecord', 'salesforce.updateRecord'],
  },
  {
    style: "Anthropic MCP code execution: one tool's own module, imported by name",
    program: `import { getDocument } from './servers/google-drive/getDocument.ts';
import { sendMessage } from './servers/slack/sendMessage.ts';

const doc = await getDocument({ documentId: 'abc123', fields: 'content' });
const summary = doc.content.split('. ')[0];
await sendMessage({ channel: '#sales', text: \`\${doc.title}: \${summary}\` });
console.log(summary);`,
    expect: { printed: ['Customer wants 40 seats from January'] },
    calls: ['google_drive.getDocument', 'slack.sendMessage'],
  },
  {
    style: 'Anthropic MCP code execution: a saved skill imported from ./skills, refused naming what to call',
    program: `import { saveSheetAsCsv } from './skills/save-sheet-as-csv';

const csvPath = await saveSheetAsCsv('abc123');
console.log(csvPath);`,
    expect: { fails: /Imports are not available: `import … from '\.\/skills\/save-sheet-as-csv'`.*call those instead/ },
    note: 'skills are files the agent wrote in an earlier turn; a Sluice run has no file system to keep them in',
    logs: [],
    calls: [],
  },
  {
    style: 'Anthropic MCP code execution: totals per region with Map.groupBy and Intl.NumberFormat',
    program: `import * as gdrive from './servers/google-drive';

const rows = await gdrive.getSheet({ sheetId: 'orders-2024' });
const byRegion = Map.groupBy(rows.filter(row => row.Status !== 'cancelled'), row => row.region);
const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
for (const [region, list] of byRegion) {
  console.log(\`\${region}: \${money.format(list.reduce((sum, row) => sum + row.amount, 0))}\`);
}
export default Object.fromEntries([...byRegion].map(([region, list]) => [region, list.length]));`,
    expect: { value: { EU: 2, US: 2 } },
    logs: ['EU: $135.50', 'US: $122.25'],
    calls: ['google_drive.getSheet'],
  },
  {
    style: 'Anthropic MCP code execution: a dynamic import of a server, a summary posted to Slack',
    program: `const gdrive = await import('./servers/google-drive');
const slack = await import('./servers/slack');

const rows = await gdrive.getSheet({ sheetId: 'abc123' });
const pending = rows.filter(row => row.Status === 'pending');
const total = pending.reduce((sum, row) => sum + row.amount, 0);
const result = await slack.sendMessage({ channel: '#ops', text: \`\${pending.length} pending orders worth \${total.toFixed(2)}\` });
console.log(result.ok ? 'posted' : 'not posted');
return total;`,
    expect: { value: 177.75 },
    logs: ['posted'],
    calls: ['google_drive.getSheet', 'slack.sendMessage'],
  },
  {
    style: "Anthropic MCP code execution: named imports from a server's index, two servers in parallel",
    program: `import { getSheet } from './servers/google-drive/index.ts';
import { getChannelHistory } from './servers/slack/index.ts';

const [rows, messages] = await Promise.all([
  getSheet({ sheetId: 'orders-2024' }),
  getChannelHistory({ channel: 'C123456' }),
]);
const shipped = rows.filter(row => row.Status === 'shipped').map(row => row.orderId);
console.log(\`Shipped: \${shipped.join(', ')}\`);
console.log(\`Latest message: \${messages.at(-1).text}\`);`,
    expect: { printed: ['Shipped: A-2', 'Latest message: deployment complete: v2.4.0'] },
    calls: ['google_drive.getSheet', 'slack.getChannelHistory'],
  },
  {
    style: 'Anthropic MCP code execution: a file written to ./workspace for a later step',
    program: `import * as gdrive from './servers/google-drive';
import * as fs from 'fs';

const rows = await gdrive.getSheet({ sheetId: 'abc123' });
const csv = rows.map(row => \`\${row.orderId},\${row.Status},\${row.amount}\`).join('\\n');
await fs.promises.writeFile('./workspace/orders.csv', csv);
console.log('Saved ' + rows.length + ' rows to ./workspace/orders.csv');`,
    expect: { fails: /Imports are not available: `import … from 'fs'`.*call those instead/ },
    note: 'the article keeps state in files between runs; a Sluice run has no file system, and the refusal says what to call instead',
    logs: [],
    calls: [],
  },
  {
    style: "Anthropic MCP code execution: leads counted by their phone's country code, first names printed",
    program: `import * as salesforce from './servers/salesforce';

const leads = await salesforce.query({ query: 'SELECT Id, Name, Phone FROM Lead' });
const byCountry = {};
for (const lead of leads) {
  const code = lead.Phone.split(' ')[0];
  byCountry[code] = (byCountry[code] ?? 0) + 1;
}
console.log(JSON.stringify(byCountry));
console.log(leads.map(lead => lead.Name.split(' ')[0]).join(' and '));`,
    expect: { printed: ['{"+55":1,"+47":1}', 'Ana and Bo'] },
    calls: ['salesforce.query'],
  },
  {
    style: 'Anthropic MCP code execution: the document summarised into Slack, the posting checked',
    program: `import * as gdrive from './servers/google-drive';
import * as slack from './servers/slack';

const doc = await gdrive.getDocument({ documentId: 'call-notes-1202' });
const seats = Number(doc.content.match(/(\\d+) seats/)?.[1] ?? 0);
const posted = await slack.sendMessage({ channel: '#deals', text: \`\${doc.title}: \${seats} seats\` });
if (!posted.ok) throw new Error('Slack refused the message');
console.log(\`Posted to \${posted.channel}: \${seats} seats\`);`,
    expect: { printed: ['Posted to #deals: 40 seats'] },
    calls: ['google_drive.getDocument', 'slack.sendMessage'],
  },
  {
    style: "Anthropic MCP code execution: a server imported as a default export, the document's first line logged",
    program: `import gdrive from './servers/google-drive';

const doc = await gdrive.getDocument({ documentId: 'abc123' });
console.log(\`\${doc.title}: \${doc.content.split('. ')[0]}\`);`,
    expect: { printed: ['Sales call, 2 December: Customer wants 40 seats from January'] },
    calls: ['google_drive.getDocument'],
  },
  {
    style: "Anthropic MCP code execution: a tool's module imported without its extension, rows counted by status",
    program: `import { getSheet } from './servers/google-drive/getSheet';

const rows = await getSheet({ sheetId: 'abc123' });
const counts = rows.reduce((acc, row) => ({ ...acc, [row.Status]: (acc[row.Status] ?? 0) + 1 }), {});
console.log(counts);`,
    expect: { printed: ["{ pending: 3, shipped: 1, cancelled: 1 }"] },
    calls: ['google_drive.getSheet'],
  },
  {
    style: 'Anthropic MCP code execution: the servers loaded with require, as CommonJS-minded models write it',
    program: `const slack = require('./servers/slack');
const salesforce = require('./servers/salesforce/index.js');

const leads = await salesforce.query({ query: 'SELECT Id, Name FROM Lead' });
const result = await slack.sendMessage({ channel: '#sales', text: \`\${leads.length} new leads\` });
console.log(result.ok ? \`Posted to \${result.channel}\` : 'Failed');`,
    expect: { printed: ['Posted to #sales'] },
    calls: ['salesforce.query', 'slack.sendMessage'],
  },
  {
    style: 'Anthropic MCP code execution: typed rows with a type guard, a total logged',
    program: `import * as gdrive from './servers/google-drive';

type Row = { orderId: string; Status: string; region: string; amount: number };

const rows: Row[] = await gdrive.getSheet({ sheetId: 'abc123' });
const isPending = (row: Row): row is Row => row.Status === 'pending';
const total = rows.filter(isPending).reduce((sum, row) => sum + row.amount, 0);
console.log(\`Pending total: \${total.toFixed(2)}\`);`,
    expect: { printed: ['Pending total: 177.75'] },
    calls: ['google_drive.getSheet'],
  },
];

export const vercelPrograms: readonly CompatibilityCase[] = [
  {
    style: "Vercel AI SDK code mode: the location tool without input, then the weather there, returned together",
    program: `const location = await getUserLocation();
const weather = await getWeather({ location });
return { location, weather };`,
    expect: { value: { location: 'London', weather: 'Weather in London: 72°F, sunny' } },
    logs: [],
    calls: ['tools.getUserLocation', 'tools.getWeather'],
  },
  {
    style: 'Vercel AI SDK code mode: positional arguments to bare tools, the colder city chosen',
    program: `const london = await getWeather("London");
const oslo = await getWeather("Oslo");
const degrees = (report) => Number(report.match(/(-?\\d+)°F/)[1]);
const result = degrees(london) < degrees(oslo) ? "London is colder" : "Oslo is colder";
return result;`,
    expect: { value: 'Oslo is colder' },
    logs: [],
    calls: ['tools.getWeather', 'tools.getWeather'],
  },
  {
    style: 'Vercel AI SDK code mode: flights searched from the user location, the cheapest non-stop one',
    program: `const from = await getUserLocation();
const flights = await searchFlights({ from, to: "Oslo", date: "2026-12-18" });
const nonstop = flights.filter((flight) => flight.stops === 0).toSorted((a, b) => a.priceUsd - b.priceUsd);
console.log(\`\${flights.length} flights, \${nonstop.length} non-stop\`);
return nonstop[0] ?? null;`,
    expect: { value: { id: 'SK-802', from: 'London', to: 'Oslo', date: '2026-12-18', priceUsd: 168, stops: 0 } },
    logs: ['3 flights, 2 non-stop'],
    calls: ['tools.getUserLocation', 'tools.searchFlights'],
  },
  {
    style: 'Vercel AI SDK code mode: prices of a portfolio fetched in parallel, an unknown ticker skipped',
    program: `const symbols = ["NET", "VRCL", "XXXX", "ANTH"];
const settled = await Promise.allSettled(symbols.map((symbol) => getStockPrice({ symbol })));
const prices = {};
settled.forEach((outcome, i) => {
  if (outcome.status === "fulfilled") prices[symbols[i]] = outcome.value.price;
  else console.log(\`skipped \${symbols[i]}\`);
});
return { prices, total: Object.values(prices).reduce((a, b) => a + b, 0) };`,
    expect: { value: { prices: { NET: 182.4, VRCL: 41.25, ANTH: 310 }, total: expect.closeTo(533.65, 9) } },
    logs: ['skipped XXXX'],
    calls: ['tools.getStockPrice', 'tools.getStockPrice', 'tools.getStockPrice', 'tools.getStockPrice'],
  },
  {
    style: 'Vercel AI SDK code mode: a helper function over bare tools, the task list brought up to date',
    program: `async function ensureTask(title) {
  const open = await listTasks({ status: "todo" });
  const existing = open.find((task) => task.title === title);
  if (existing) return { id: existing.id, created: false };
  const task = await createTask({ title, priority: "low" });
  return { id: task.id, created: true };
}

const results = [];
for (const title of ["Update logo", "Renew domain"]) {
  results.push(await ensureTask(title));
}
return results;`,
    expect: {
      value: [
        { id: 3, created: false },
        { id: 4, created: true },
      ],
    },
    logs: [],
    calls: ['tools.listTasks', 'tools.listTasks', 'tools.createTask'],
  },
  {
    style: 'Vercel AI SDK code mode: a try/catch fallback when a tool throws, console.log for progress',
    program: `let report;
try {
  report = await getWeather({ location: "Atlantis" });
} catch (error) {
  console.log("Falling back to the user's location:", error.message);
  report = await getWeather({ location: await getUserLocation() });
}
return report;`,
    expect: { value: 'Weather in London: 72°F, sunny' },
    logs: [expect.stringMatching(/^Falling back to the user's location: .*no forecast for Atlantis/)],
    calls: ['tools.getWeather', 'tools.getUserLocation', 'tools.getWeather'],
  },
  {
    style: 'Vercel AI SDK code mode: results shaped into a structured object with a computed summary',
    program: `const [weather, price, flights] = await Promise.all([
  getWeather({ location: "Paris" }),
  getStockPrice({ symbol: "NET" }),
  searchFlights({ from: "Paris", to: "Oslo", date: "2026-12-18" }),
]);
return {
  summary: \`\${weather}; NET at $\${price.price.toFixed(2)}; \${flights.length} flight(s) to Oslo\`,
  cheapest: Math.min(...flights.map((flight) => flight.priceUsd)),
};`,
    expect: {
      value: { summary: 'Weather in Paris: 64°F, cloudy; NET at $182.40; 1 flight(s) to Oslo', cheapest: 190 },
    },
    logs: [],
    calls: ['tools.getWeather', 'tools.getStockPrice', 'tools.searchFlights'],
  },
  {
    style: 'Vercel AI SDK code mode: an email sent per snowy city, the sent count returned',
    program: `let sent = 0;
for (const location of ["London", "Paris", "Oslo"]) {
  const weather = await getWeather({ location });
  if (!weather.includes("snow")) continue;
  const status = await sendEmail({ to: "ops@example.com", subject: \`Snow in \${location}\`, body: weather });
  console.log(status);
  sent++;
}
return sent;`,
    expect: { value: 1 },
    logs: ['Email sent to ops@example.com'],
    calls: ['tools.getWeather', 'tools.getWeather', 'tools.getWeather', 'tools.sendEmail'],
  },
  {
    style: "Vercel AI SDK and Sandbox: the AI code runner's generated Node script, Fibonacci numbers printed",
    program: `// Print the first 20 Fibonacci numbers
const fib = [0, 1];
while (fib.length < 20) {
  fib.push(fib[fib.length - 1] + fib[fib.length - 2]);
}
console.log(fib.join(", "));`,
    expect: { printed: ['0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181'] },
    calls: [],
  },
  {
    style: "Vercel AI SDK and Sandbox: the AI code runner's generated script, primes with a helper function",
    program: `function isPrime(n) {
  if (n < 2) return false;
  for (let i = 2; i * i <= n; i++) {
    if (n % i === 0) return false;
  }
  return true;
}

const primes = Array.from({ length: 50 }, (_, i) => i).filter(isPrime);
console.log(\`Found \${primes.length} primes below 50\`);
console.log(primes);`,
    // Node would spread the 15 numbers over five lines in columns; a run's log keeps them on one.
    expect: { printed: ['Found 15 primes below 50', '[ 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47 ]'] },
    calls: [],
  },
  {
    style: "Vercel AI SDK and Sandbox: the AI code runner's generated script, word counts printed as JSON",
    program: `const text = "the quick brown fox jumps over the lazy dog the fox";
const counts = {};
for (const word of text.split(/\\s+/)) {
  counts[word] = (counts[word] || 0) + 1;
}
const top = Object.entries(counts)
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  .slice(0, 3);
console.log(JSON.stringify(Object.fromEntries(top)));`,
    expect: { printed: ['{"the":3,"fox":2,"brown":1}'] },
    calls: [],
  },
  {
    style: "Vercel AI SDK and Sandbox: the AI code runner's generated script fetching a URL itself",
    program: `const response = await fetch("https://hacker-news.firebaseio.com/v0/topstories.json");
const ids = await response.json();
console.log(\`Top story id: \${ids[0]}\`);`,
    expect: { fails: /fetch.*tool/i },
    note: 'a run has no network of its own: the failure says so and names the tool search',
    logs: [],
    calls: [],
  },
];
