// Close the API project's open wontfix issues. With durable-policy.json each close waits for a person.
const { issues: found } = await issues.search({ project: 'API', label: 'wontfix' });
console.log(`closing ${found.map((issue) => issue.id).join(' and ')}`);
const closed: string[] = [];
for (const issue of found) {
  try {
    closed.push((await issues.close({ id: issue.id, comment: 'Closing: marked wontfix.' })).id);
  } catch {
    console.log(`${issue.id} stays open`);
  }
}
return closed;
