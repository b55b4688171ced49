import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createAuditLog, deriveBindings, loadPolicyFile, type Tool } from '@sluice/permissions';

const createIssue: Tool = {
  name: 'github__create_issue',
  description: 'Files an issue and returns its number.',
  inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
  execute: async () => ({ number: 42 }),
};

const policy = await loadPolicyFile(new URL('./policy.json', import.meta.url));
const audit = createAuditLog();
const bindings = deriveBindings([createIssue], policy, {
  // A person would answer here; this one allows titles that say where they came from.
  approve: ({ arguments: input }) =>
    (input as { title: string }).title.startsWith('[bot]')
      ? { decision: 'allow' }
      : { decision: 'deny', reason: 'prefix bot-filed titles with [bot]' },
  approvalTimeoutMs: 60_000,
  onDecision: audit.record,
});

const runtime = createPythonCodeRuntime({});
const result = await runtime.run({
  program: `
try:
    await github.create_issue(title="Flaky test")
except Exception as error:
    print(error)
issue = await github.create_issue(title="[bot] Flaky test")
return issue["number"]`,
  bindings,
});
const output = result.ok ? result.value : result.failure.message;
console.log(
  output,
  result.logs.map((line) => line.text),
);
// 42 [ 'Permission denied: github.create_issue was not approved: prefix bot-filed titles with [bot]. ...' ]
console.log(audit.entries().map((entry) => `${entry.binding}: ${entry.decision}`));
// [ 'github.create_issue: deny', 'github.create_issue: allow' ]
await runtime.dispose();
