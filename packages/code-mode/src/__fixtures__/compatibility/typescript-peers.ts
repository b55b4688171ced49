// Programs in the original form of two public code-mode peers, over the tools of ./peer-tools.ts:
// Cloudflare's code mode (`codemode.<tool>(…)` inside an async arrow, as its README and generated
// prompts show) and Anthropic's "code execution with MCP" (`import * as gdrive from
// './servers/google-drive'`, results filtered in the program and printed). Each states its value
// (or what it prints), its log lines and the calls it makes, by the namespace that recorded them.
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
];
