import type { CodeRunResult, CodeRuntime, JsonValue } from '@sluice/code-runtime';
import { expect, it } from 'vitest';
import type { ApprovalRequest } from '../approval.js';
import { createAuditLog } from '../audit-log.js';
import { deriveBindings } from '../derive-bindings.js';
import { createPolicy, type Policy } from '../policy.js';
import type { Tool } from '../tool.js';

/** The same scenarios written in each provider's language. Each program returns what it observed. */
export interface IntegrationPrograms {
  /** Writes (denied by rule), catches the error, returns its message. */
  readonly denied: string;
  /** Reads `/srv/data/notes.txt`, then `/srv/data/../secrets.txt`; returns [text, error message]. */
  readonly pathGuard: string;
  /** Files two issues (the approver allows the first, denies the second); returns [number, error message]. */
  readonly approval: string;
  /** Searches with `query: 5`; returns the error message. */
  readonly validation: string;
  /** Searches twice; the first search revokes the policy on the host; returns [result, error message]. */
  readonly policyChange: string;
  /** Writes without catching: the run fails with the denial. */
  readonly uncaught: string;
}

interface Fixture {
  readonly tools: Tool[];
  readonly executed: string[];
  setPolicy(policy: Policy): void;
  readonly policy: () => Policy;
}

const files: Record<string, string> = { '/srv/data/notes.txt': 'hello from notes', '/srv/secrets.txt': 'top secret' };

const basePolicy = createPolicy({
  rules: [
    { tool: 'fs.read-file', effect: 'allow', when: { path: { within: ['/srv/data'] } } },
    { tool: 'fs.write-file', effect: 'deny', reason: 'the data folder is read-only' },
    { tool: 'github__create_issue', effect: 'ask', description: 'issues need a person' },
    { tool: 'search', effect: 'allow' },
  ],
});

function fixture(): Fixture {
  const executed: string[] = [];
  let current = basePolicy;
  const tool = (name: string, inputSchema: Tool['inputSchema'], run: (input: JsonValue) => JsonValue): Tool => ({
    name,
    description: name,
    inputSchema,
    execute: (input) => {
      executed.push(name);
      return run(input);
    },
  });
  const pathSchema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
  const tools = [
    tool('fs.read-file', pathSchema, (input) => files[(input as { path: string }).path] ?? null),
    tool('fs.write-file', pathSchema, () => 'written'),
    tool('github__create_issue', { type: 'object', required: ['title'] }, () => ({ number: 7 })),
    tool('search', { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] }, (input) => {
      current = createPolicy({ rules: [{ tool: 'search', effect: 'deny', reason: 'search was switched off' }] });
      return [`result for ${(input as { query: string }).query}`];
    }),
  ];
  return {
    tools,
    executed,
    setPolicy: (policy) => {
      current = policy;
    },
    policy: () => current,
  };
}

/** Registers the integration cases for one provider. `runtime()` returns the runtime to use (created by the caller). */
export function integrationCases(runtime: () => CodeRuntime, programs: IntegrationPrograms): void {
  const run = async (program: string, approve?: (request: ApprovalRequest) => 'allow' | string) => {
    const { tools, executed, policy } = fixture();
    const audit = createAuditLog();
    const bindings = deriveBindings(tools, policy, {
      onDecision: audit.record,
      approvalTimeoutMs: 30_000,
      ...(approve === undefined
        ? {}
        : {
            approve: (request: ApprovalRequest) => {
              const answer = approve(request);
              return answer === 'allow' ? { decision: 'allow' as const } : { decision: 'deny' as const, reason: answer };
            },
          }),
    });
    const result = await runtime().run({ program, bindings });
    return { result, executed, audit };
  };
  const valueOf = (result: CodeRunResult): JsonValue | undefined => {
    if (!result.ok) throw new Error(`run failed: ${result.failure.kind}: ${result.failure.message}`);
    return result.value;
  };

  it('fails a denied call inside the program with the reason and what is available', async () => {
    const { result, executed, audit } = await run(programs.denied);
    expect(valueOf(result)).toBe(
      'Permission denied: fs.write_file is not allowed: the data folder is read-only. ' +
        'Tools available to this program: fs.read_file, github.create_issue, tools.search.',
    );
    expect(executed).toEqual([]);
    expect(audit.entries().map((entry) => [entry.binding, entry.decision, entry.deniedBy, entry.rule?.index])).toEqual([
      ['fs.write_file', 'deny', 'rule', 1],
    ]);
    expect(audit.entries()[0]!.callId).toBe(result.calls[0]!.callId);
    expect(result.calls[0]).toMatchObject({ namespace: 'fs', name: 'write_file', ok: false });
  });

  it('lets a path inside the root through and stops a traversal out of it', async () => {
    const { result, executed } = await run(programs.pathGuard);
    const [text, error] = valueOf(result) as [string, string];
    expect(text).toBe('hello from notes');
    expect(error).toMatch(/^Permission denied: fs\.read_file is not allowed: no policy rule allows it \(rule 0: /);
    expect(error).toContain('"/srv/data/../secrets.txt" (it resolves to /srv/secrets.txt) is not within /srv/data');
    expect(executed).toEqual(['fs.read-file']);
  });

  it('asks for approval with the real arguments and honours each answer', async () => {
    const asked: JsonValue[] = [];
    const { result, executed, audit } = await run(programs.approval, (request) => {
      asked.push(request.arguments);
      return asked.length === 1 ? 'allow' : 'one issue per run';
    });
    const [number, error] = valueOf(result) as [number, string];
    expect(number).toBe(7);
    expect(error).toMatch(/^Permission denied: github\.create_issue was not approved: one issue per run\./);
    expect(asked).toEqual([{ title: 'First' }, { title: 'Second' }]);
    expect(executed).toEqual(['github__create_issue']);
    expect(audit.entries().map((entry) => entry.approval?.outcome)).toEqual(['allow', 'deny']);
  });

  it('fails an invalid call inside the program with the JSON path of the problem', async () => {
    const { result, executed, audit } = await run(programs.validation);
    expect(valueOf(result)).toBe('Invalid input for tools.search: $.query must be string. Fix the argument and call it again.');
    expect(executed).toEqual([]);
    expect(audit.entries()[0]).toMatchObject({ decision: 'deny', deniedBy: 'validation' });
  });

  it('applies a policy changed mid-run to the calls after the change', async () => {
    const { result, executed } = await run(programs.policyChange);
    const [first, error] = valueOf(result) as [JsonValue, string];
    expect(first).toEqual(['result for a']);
    expect(error).toMatch(/^Permission denied: tools\.search is not allowed: search was switched off\./);
    expect(executed).toEqual(['search']);
  });

  it('ends the run as an exception when the program does not catch a denial', async () => {
    const { result, executed } = await run(programs.uncaught);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.kind).toBe('exception');
    expect(result.failure.message).toContain('Permission denied: fs.write_file is not allowed: the data folder is read-only.');
    expect(executed).toEqual([]);
  });
}
