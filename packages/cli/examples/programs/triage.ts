// Open high-priority bugs across three projects, grouped by assignee.
const projects = ['WEB', 'API', 'PAY'] as const;
const pages = await Promise.all(projects.map((project) => issues.search({ project, label: 'bug', limit: 50 })));
const urgent = pages.flatMap((page) => page.issues).filter((issue) => issue.priority === 'high');
console.log(`${urgent.length} open high-priority bugs`);

const byAssignee: Record<string, string[]> = {};
for (const issue of urgent) (byAssignee[issue.assignee ?? 'unassigned'] ??= []).push(issue.id);
return byAssignee;
