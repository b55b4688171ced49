import { InvalidSettingsError, type JsonValue } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { callBinding, recordingTool } from './__fixtures__/test-support.js';
import type { PermissionDecision } from './audit-log.js';
import { deriveBindings } from './derive-bindings.js';
import { createPolicy, type Policy } from './policy.js';
import type { Tool } from './tool.js';

const readSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
  required: ['path'],
  additionalProperties: false,
};

describe('deriveBindings', () => {
  it('groups tools into namespaces by their binding names', () => {
    const bindings = deriveBindings(
      [recordingTool('search').tool, recordingTool('fs.read-file').tool, recordingTool('github__create_issue').tool],
      { rules: [] },
    );
    expect(Object.keys(bindings).sort()).toEqual(['fs', 'github', 'tools']);
    expect(Object.keys(bindings.fs!)).toEqual(['read_file']);
    expect(Object.keys(bindings.github!)).toEqual(['create_issue']);
    expect(Object.isFrozen(bindings)).toBe(true);
  });

  it('runs an allowed call and returns what execute returned', async () => {
    const { tool, calls } = recordingTool('search');
    const bindings = deriveBindings([tool], { rules: [{ tool: 'search', effect: 'allow' }] });
    await expect(callBinding(bindings, 'tools.search', { q: 'x' })).resolves.toEqual({ echoed: { q: 'x' } });
    expect(calls).toEqual([{ q: 'x' }]);
  });

  it('passes the run, the call and the signal to execute', async () => {
    let seen: unknown;
    const tool: Tool = {
      name: 'who',
      description: 'who am I',
      inputSchema: {},
      execute: (_input, context) => {
        seen = { runId: context.runId, callId: context.callId, aborted: context.signal.aborted };
        return null;
      },
    };
    const bindings = deriveBindings([tool], { default: 'allow', rules: [] });
    await bindings.tools!.who!(null, { runId: 'run-9', callId: 'c-3', signal: new AbortController().signal });
    expect(seen).toEqual({ runId: 'run-9', callId: 'c-3', aborted: false });
  });

  it('rejects a denied call with the reason and what is available, and never executes it', async () => {
    const write = recordingTool('fs.write-file');
    const bindings = deriveBindings([write.tool, recordingTool('search').tool, recordingTool('fs.read-file').tool], {
      rules: [
        { tool: 'fs.write-file', effect: 'deny', reason: 'this agent may not change files' },
        { tool: ['search', 'fs.read-file'], effect: 'allow' },
      ],
    });
    await expect(callBinding(bindings, 'fs.write_file', { path: '/x' })).rejects.toThrow(
      'Permission denied: fs.write_file is not allowed: this agent may not change files. ' +
        'Tools available to this program: fs.read_file, tools.search.',
    );
    expect(write.calls).toEqual([]);
  });

  it('denies by default, explaining the unmet condition', async () => {
    const read = recordingTool('fs.read-file', readSchema);
    const bindings = deriveBindings([read.tool], {
      rules: [{ tool: 'fs.read-file', effect: 'allow', when: { path: { within: ['/srv/data'] } } }],
    });
    await expect(callBinding(bindings, 'fs.read_file', { path: '/srv/data/../../etc/passwd' })).rejects.toThrow(
      'Permission denied: fs.read_file is not allowed: no policy rule allows it (rule 0: argument "path": ' +
        '"/srv/data/../../etc/passwd" (it resolves to /etc/passwd) is not within /srv/data). ' +
        'Tools available to this program: fs.read_file.',
    );
    expect(read.calls).toEqual([]);
  });

  it('says so when nothing at all is available', async () => {
    const bindings = deriveBindings([recordingTool('search').tool], { rules: [] });
    await expect(callBinding(bindings, 'tools.search', null)).rejects.toThrow(
      /No tools are available to this program\.$/,
    );
  });

  it('validates input before execute and names the JSON path of each problem', async () => {
    const read = recordingTool('fs.read-file', readSchema);
    const bindings = deriveBindings([read.tool], { default: 'allow', rules: [] });
    await expect(callBinding(bindings, 'fs.read_file', { path: 7, limit: 0, mode: 'x' })).rejects.toThrow(
      'Invalid input for fs.read_file: $.mode is not allowed; $.path must be string; $.limit must be >= 1. ' +
        'Fix the argument and call it again.',
    );
    await expect(callBinding(bindings, 'fs.read_file', null)).rejects.toThrow(
      'Invalid input for fs.read_file: $ must be object.',
    );
    expect(read.calls).toEqual([]);
  });

  it('rejects a result that does not match the output schema', async () => {
    const tool: Tool = {
      name: 'count',
      description: 'counts',
      inputSchema: {},
      outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      execute: () => ({ n: 'many' }),
    };
    const bindings = deriveBindings([tool], { default: 'allow', rules: [] });
    await expect(callBinding(bindings, 'tools.count', null)).rejects.toThrow(
      'tools.count returned a result that does not match its output schema: $.n must be integer.',
    );
  });

  it('lets an error thrown by execute reach the program unchanged', async () => {
    const tool: Tool = {
      name: 'flaky',
      description: 'fails',
      inputSchema: {},
      execute: () => {
        throw new Error('upstream said 503');
      },
    };
    const bindings = deriveBindings([tool], { default: 'allow', rules: [] });
    await expect(callBinding(bindings, 'tools.flaky', null)).rejects.toThrow('upstream said 503');
  });

  it('reads the policy at every call, so a policy changed mid-run applies to later calls', async () => {
    const search = recordingTool('search');
    let current: Policy = createPolicy({ rules: [{ tool: 'search', effect: 'allow' }] });
    const bindings = deriveBindings([search.tool], () => current);
    await expect(callBinding(bindings, 'tools.search', { n: 1 })).resolves.toEqual({ echoed: { n: 1 } });
    current = createPolicy({ rules: [{ tool: 'search', effect: 'deny', reason: 'revoked by the operator' }] });
    await expect(callBinding(bindings, 'tools.search', { n: 2 })).rejects.toThrow(/revoked by the operator/);
    current = createPolicy({ rules: [{ tool: 'search', effect: 'allow' }] });
    await expect(callBinding(bindings, 'tools.search', { n: 3 })).resolves.toEqual({ echoed: { n: 3 } });
    expect(search.calls).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('denies every call when the policy source throws or returns something else', async () => {
    const search = recordingTool('search');
    const throwing = deriveBindings([search.tool], () => {
      throw new Error('policy store is down');
    });
    await expect(callBinding(throwing, 'tools.search', null)).rejects.toThrow(/permission policy could not be read/);
    const wrong = deriveBindings([search.tool], () => ({ rules: [] }) as unknown as Policy);
    await expect(callBinding(wrong, 'tools.search', null)).rejects.toThrow(/permission policy could not be read/);
    expect(search.calls).toEqual([]);
  });

  it('reports every decision with the tool, arguments, rule and time taken', async () => {
    const events: PermissionDecision[] = [];
    const bindings = deriveBindings(
      [recordingTool('search').tool, recordingTool('fs.read-file', readSchema).tool],
      { rules: [{ tool: 'search', effect: 'allow', description: 'search is harmless' }] },
      { onDecision: (event) => events.push(event) },
    );
    await callBinding(bindings, 'tools.search', { q: 'a' }, { runId: 'run-7' });
    await callBinding(bindings, 'fs.read_file', { path: '/etc' }, { runId: 'run-7' }).catch(() => undefined);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      runId: 'run-7',
      tool: 'search',
      binding: 'tools.search',
      arguments: { q: 'a' },
      decision: 'allow',
      effect: 'allow',
      rule: { index: 0, description: 'search is harmless' },
    });
    expect(events[1]).toMatchObject({ tool: 'fs.read-file', decision: 'deny', deniedBy: 'default', effect: 'deny' });
    expect(events[1]!.rule).toBeUndefined();
    expect(events[1]!.message).toMatch(/^Permission denied: fs.read_file/);
    for (const event of events) {
      expect(event.ms).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
      expect(event.callId).toMatch(/^call-/);
    }
  });

  it('reports a validation failure as a denial by validation', async () => {
    const events: PermissionDecision[] = [];
    const bindings = deriveBindings(
      [recordingTool('fs.read-file', readSchema).tool],
      { default: 'allow', rules: [] },
      {
        onDecision: (event) => events.push(event),
      },
    );
    await callBinding(bindings, 'fs.read_file', {}).catch(() => undefined);
    expect(events[0]).toMatchObject({ decision: 'deny', deniedBy: 'validation', effect: 'allow' });
    expect(events[0]!.message).toContain('$.path is required');
  });

  it('keeps the reported arguments as they arrived, even if execute changes its input', async () => {
    const events: PermissionDecision[] = [];
    const tool: Tool = {
      name: 'mutate',
      description: 'changes its input',
      inputSchema: {},
      execute: (input) => {
        (input as { list: JsonValue[] }).list.push('added');
        return null;
      },
    };
    const bindings = deriveBindings(
      [tool],
      { default: 'allow', rules: [] },
      { onDecision: (event) => events.push(event) },
    );
    await callBinding(bindings, 'tools.mutate', { list: [1] });
    expect(events[0]!.arguments).toEqual({ list: [1] });
  });

  it('ignores a decision listener that throws', async () => {
    const search = recordingTool('search');
    const bindings = deriveBindings(
      [search.tool],
      { default: 'allow', rules: [] },
      {
        onDecision: () => {
          throw new Error('listener broke');
        },
      },
    );
    await expect(callBinding(bindings, 'tools.search', { n: 1 })).resolves.toEqual({ echoed: { n: 1 } });
  });

  it('binds a reserved word by its own name and as <name>_, and a rule naming either covers it', async () => {
    const remove = recordingTool('fs.delete');
    const bindings = deriveBindings([remove.tool, recordingTool('fs.class').tool], {
      default: 'allow',
      rules: [{ tool: 'fs.delete_', effect: 'deny', reason: 'no deleting' }],
    });
    expect(Object.keys(bindings.fs!).sort()).toEqual(['class', 'class_', 'delete', 'delete_']);
    await expect(callBinding(bindings, 'fs.delete', { path: '/a' })).rejects.toThrow('no deleting');
    await expect(callBinding(bindings, 'fs.delete_', { path: '/a' })).rejects.toThrow('no deleting');
    await expect(callBinding(bindings, 'fs.class_', {})).resolves.toEqual({ echoed: {} });
    expect(remove.calls).toEqual([]);
    const byNewName = deriveBindings([remove.tool], {
      default: 'allow',
      rules: [{ tool: 'fs.delete', effect: 'deny' }],
    });
    await expect(callBinding(byNewName, 'fs.delete_', {})).rejects.toThrow('Permission denied');
  });

  it("lets parseInput alone decide with inputValidation: 'parse-input', as the AI SDK does", async () => {
    const received: JsonValue[] = [];
    const strip: Tool = {
      name: 'weather',
      description: 'Weather in a city.',
      inputSchema: { ...readSchema, properties: { city: { type: 'string' } }, required: ['city'] },
      inputValidation: 'parse-input',
      // A zod object's way: unknown keys are dropped, a missing city refused.
      parseInput: (input) => {
        const { city } = input as { city?: unknown };
        return typeof city === 'string' ? { ok: true, value: { city } } : { ok: false, problems: ['$.city: required'] };
      },
      execute: (input) => {
        received.push(input);
        return 'sunny';
      },
    };
    const bindings = deriveBindings([strip], { default: 'allow', rules: [] });
    await expect(callBinding(bindings, 'tools.weather', { city: 'Oslo', color: 'red' })).resolves.toBe('sunny');
    expect(received).toEqual([{ city: 'Oslo' }]);
    await expect(callBinding(bindings, 'tools.weather', { color: 'red' })).rejects.toThrow('$.city: required');
    const checked = deriveBindings([{ ...strip, inputValidation: 'schema' }], { default: 'allow', rules: [] });
    await expect(callBinding(checked, 'tools.weather', { city: 'Oslo', color: 'red' })).rejects.toThrow('color');
    expect(() => deriveBindings([{ ...strip, inputValidation: 'loose' as never }], { rules: [] })).toThrow(
      /inputValidation must be 'schema' or 'parse-input'/,
    );
  });

  it('keeps both tools when two map to the same binding: the one already spelt so keeps it, the other takes _2', async () => {
    const dashed = recordingTool('fs.read-file');
    const plain = recordingTool('fs.read_file');
    for (const order of [
      [dashed.tool, plain.tool],
      [plain.tool, dashed.tool],
    ]) {
      const bindings = deriveBindings(order, {
        rules: [
          { tool: 'fs.read_file', effect: 'allow' },
          { tool: 'fs.read_file_2', effect: 'deny', reason: 'not this one' },
        ],
      });
      expect(Object.keys(bindings.fs!).sort()).toEqual(['read_file', 'read_file_2']);
      await expect(callBinding(bindings, 'fs.read_file', { path: '/a' })).resolves.toEqual({ echoed: { path: '/a' } });
      // A rule naming fs.read_file covers only the tool bound there, not the one renamed away from it.
      await expect(callBinding(bindings, 'fs.read_file_2', { path: '/b' })).rejects.toThrow(
        'Permission denied: fs.read_file_2 is not allowed: not this one.',
      );
    }
    expect(plain.calls).toEqual([{ path: '/a' }, { path: '/a' }]);
    expect(dashed.calls).toEqual([]);
    const byOwnName = deriveBindings([dashed.tool, plain.tool], { rules: [{ tool: 'fs.read-file', effect: 'allow' }] });
    await expect(callBinding(byOwnName, 'fs.read_file_2', { path: '/c' })).resolves.toEqual({ echoed: { path: '/c' } });
    await expect(callBinding(byOwnName, 'fs.read_file', { path: '/d' })).rejects.toThrow('Permission denied');
  });

  it('throws InvalidRequestError for malformed tools, duplicate names and unusable schemas', () => {
    const search = recordingTool('search').tool;
    expect(() => deriveBindings([search, search], { rules: [] })).toThrow(/has the same name as tools\[0\]/);
    expect(() => deriveBindings([{ ...search, name: '' }], { rules: [] })).toThrow(
      /tools\[0\]\.name must be a non-empty/,
    );
    expect(() => deriveBindings([{ ...search, execute: undefined } as unknown as Tool], { rules: [] })).toThrow(
      /needs an execute function/,
    );
    expect(() => deriveBindings([{ ...search, inputSchema: { type: 'strin' } }], { rules: [] })).toThrow(
      /inputSchema is not a usable JSON Schema/,
    );
    expect(() => deriveBindings([{ ...search, name: '__init__' }], { rules: [] })).toThrow(/double-underscore/);
    expect(() => deriveBindings('search' as unknown as Tool[], { rules: [] })).toThrow(/tools must be an array/);
  });

  it('throws InvalidSettingsError for unknown or malformed options and a malformed policy', () => {
    const tools = [recordingTool('search').tool];
    const settingOf = (action: () => unknown) => (thrownBy(action) as InvalidSettingsError).setting;
    expect(settingOf(() => deriveBindings(tools, { rules: [] }, { approvalTimeout: 5 } as never))).toBe(
      'approvalTimeout',
    );
    expect(settingOf(() => deriveBindings(tools, { rules: [] }, { approvalTimeoutMs: 0 }))).toBe('approvalTimeoutMs');
    expect(settingOf(() => deriveBindings(tools, { rules: [] }, { approvalTimeoutMs: 2 ** 31 }))).toBe(
      'approvalTimeoutMs',
    );
    expect(settingOf(() => deriveBindings(tools, { rules: [] }, { approve: 'yes' } as never))).toBe('approve');
    expect(settingOf(() => deriveBindings(tools, { rules: [] }, { defaultNamespace: 'class' }))).toBe(
      'defaultNamespace',
    );
    expect(settingOf(() => deriveBindings(tools, { rules: [{ tool: 'x', effect: 'maybe' }] } as never))).toBe(
      'rules[0].effect',
    );
    expect(
      InvalidSettingsError.isInstance(thrownBy(() => deriveBindings(tools, { rules: [] }, { approve: 1 } as never))),
    ).toBe(true);
  });
});

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
