/** One program of the demo, as the model would send it to `run_code`. */
export interface DemoProgram {
  readonly title: string;
  /** What the demo wants the reader to notice. */
  readonly point: string;
  readonly language: 'typescript' | 'python';
  readonly description: string;
  readonly code: string;
}

/** TypeScript: fan out over projects, filter, then fan out again for details and aggregate. */
export const triageProgram: DemoProgram = {
  title: 'TypeScript: fan out, filter, aggregate',
  point: 'Three searches at once, a filter, five lookups at once, one summary back.',
  language: 'typescript',
  description: 'Open high-priority bugs per assignee',
  code: `const projects = ['WEB', 'API', 'PAY'] as const;
const pages = await Promise.all(projects.map((project) => issues.search({ project, label: 'bug', limit: 50 })));
const urgent = pages.flatMap((page) => page.issues).filter((issue) => issue.priority === 'high');
console.log(\`\${urgent.length} open high-priority bugs in \${projects.length} projects\`);

const byAssignee: Record<string, string[]> = {};
for (const issue of urgent) (byAssignee[issue.assignee ?? 'unassigned'] ??= []).push(issue.id);

const oldest = [...urgent].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).slice(0, 5);
const details = await Promise.all(oldest.map((issue) => issues.get({ id: issue.id })));
return {
  byAssignee,
  oldest: details.map((issue) => \`\${issue.id} (\${issue.createdAt}): \${issue.title}\`),
};`,
};

/** Python: fan out over cities with asyncio.gather, pick the driest day per city, aggregate. */
export const offsiteProgram: DemoProgram = {
  title: 'Python: fan out with asyncio.gather, filter, aggregate',
  point: 'Eight forecasts at once; the program picks the driest day per office and ranks them.',
  language: 'python',
  description: 'Driest offsite day per office',
  code: `cities = await weather.cities()
forecasts = await asyncio.gather(*(weather.forecast(city=city, days=7) for city in cities))

best = []
for forecast in forecasts:
    dry = [day for day in forecast["days"] if day["rain"] < 0.3 and day["high"] >= 10]
    if not dry:
        print(f"{forecast['city']}: no dry, mild day this week")
        continue
    day = min(dry, key=lambda d: d["rain"])
    print(f"{forecast['city']}: {day['date']}, {day['rain']:.0%} rain, {day['high']} °C")
    best.append({"city": forecast["city"], "date": day["date"], "rain": day["rain"], "high": day["high"]})

best.sort(key=lambda entry: entry["rain"])
return {"offsites": best[:3], "checked": len(cities)}`,
};

/** TypeScript: a call the policy denies, caught and worked around inside the program. */
export const cleanupProgram: DemoProgram = {
  title: 'TypeScript: a call the policy denies',
  point: 'The policy refuses to close a PAY issue; the program reads the reason and comments instead.',
  language: 'typescript',
  description: 'Close stale wontfix issues',
  code: `const wontfix = await issues.search({ label: 'wontfix', limit: 50 });
const stale = wontfix.issues.filter((issue) => issue.updatedAt < '2026-09-01');
const outcome = { closed: [] as string[], commented: [] as string[] };
for (const issue of stale) {
  try {
    await issues.close({ id: issue.id, comment: 'Closing: marked wontfix and idle for 90+ days.' });
    outcome.closed.push(issue.id);
  } catch (error) {
    console.warn(\`\${issue.id}: \${(error as Error).message}\`);
    await issues.comment({ id: issue.id, body: 'Idle wontfix issue: please close it if you agree.' });
    outcome.commented.push(issue.id);
  }
}
return outcome;`,
};

/** TypeScript: one slow call after another, until the wall clock stops the run. */
export const historyProgram: DemoProgram = {
  title: 'TypeScript: a run that hits its wall clock',
  point: 'One slow call at a time cannot finish in time; the result says so, with every call made.',
  language: 'typescript',
  description: 'Change history of every open issue',
  code: `const open = await issues.search({ state: 'open', limit: 50 });
const histories = [];
for (const issue of open.issues) {
  histories.push(await issues.history({ id: issue.id }));
}
return histories.length;`,
};
