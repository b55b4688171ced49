import { describe, expect, it } from 'vitest';
import { callBinding, recordingTool } from './__fixtures__/test-support.js';
import { deriveBindings } from './derive-bindings.js';
import { createPolicy } from './policy.js';
import { unmatchedToolPatterns } from './policy-coverage.js';
import { evaluatePolicy, mayBeAllowed } from './policy-evaluate.js';

describe('policy rules naming a tool by its binding', () => {
  const policy = createPolicy({
    default: 'allow',
    rules: [
      { tool: 'everything.get_env', effect: 'deny', reason: 'no environment' },
      { tool: 'everything__echo_twice', effect: 'deny' },
      { tool: 'fs.read_*', effect: 'ask' },
    ],
  });

  it('matches the binding as the program writes it, and written with __', () => {
    expect(evaluatePolicy(policy, 'everything__get-env', {})).toEqual({
      effect: 'deny',
      rule: { index: 0 },
      reason: 'no environment',
    });
    expect(evaluatePolicy(policy, 'everything__echo-twice', {})).toEqual({ effect: 'deny', rule: { index: 1 } });
    expect(evaluatePolicy(policy, 'fs/read-text', {})).toEqual({ effect: 'ask', rule: { index: 2 } });
    expect(evaluatePolicy(policy, 'mcp__everything__get-env', {}).effect).toBe('deny');
    expect(evaluatePolicy(policy, 'everything__echo', {})).toEqual({ effect: 'allow' });
  });

  it('maps with the naming options the bindings use', () => {
    expect(evaluatePolicy(policy, 'everything__get-env', {}, { splitNamespaces: false }).effect).toBe('allow');
    const unsplit = createPolicy({ default: 'allow', rules: [{ tool: 'host.everything__get_env', effect: 'deny' }] });
    const naming = { splitNamespaces: false, defaultNamespace: 'host' };
    expect(evaluatePolicy(unsplit, 'everything__get-env', {}, naming).effect).toBe('deny');
    expect(mayBeAllowed(unsplit, 'everything__get-env', naming)).toBe(false);
  });

  it('leaves a tool denied by its binding name out of what may be allowed', () => {
    expect(mayBeAllowed(policy, 'everything__get-env')).toBe(false);
    expect(mayBeAllowed(policy, 'everything__echo')).toBe(true);
  });

  it('denies the call through deriveBindings, so it never executes', async () => {
    const getEnv = recordingTool('everything__get-env');
    const bindings = deriveBindings([getEnv.tool, recordingTool('everything__echo').tool], policy);
    await expect(callBinding(bindings, 'everything.get_env', {})).rejects.toThrow(
      /^Permission denied: everything\.get_env is not allowed: no environment\./,
    );
    expect(getEnv.calls).toEqual([]);
    await expect(callBinding(bindings, 'everything.echo', { text: 'hi' })).resolves.toEqual({
      echoed: { text: 'hi' },
    });
  });
});

describe('unmatchedToolPatterns', () => {
  const tools = ['everything__get-env', 'everything__echo', 'fs.read-file'];

  it('lists each pattern that names no tool by any of its names, with where it is written', () => {
    const policy = createPolicy({
      rules: [
        { tool: 'everything.get_env', effect: 'deny' },
        { tool: ['everything__echo', 'everything__ecko', 'fs__read_file'], effect: 'allow' },
        { tool: 'github__*', effect: 'deny' },
        { tool: 'fs.read-file', effect: 'allow' },
        { tool: '*', effect: 'ask' },
      ],
    });
    expect(unmatchedToolPatterns(policy, tools)).toEqual([
      { rule: 1, pattern: 'everything__ecko', setting: 'rules[1].tool[1]' },
      { rule: 2, pattern: 'github__*', setting: 'rules[2].tool' },
    ]);
  });

  it('finds nothing to report when every pattern names a tool, or the policy has no rules', () => {
    expect(unmatchedToolPatterns(createPolicy({ rules: [{ tool: 'everything.*', effect: 'allow' }] }), tools)).toEqual(
      [],
    );
    expect(unmatchedToolPatterns(createPolicy({ default: 'allow', rules: [] }), [])).toEqual([]);
  });

  it('reports every pattern when there are no tools at all', () => {
    const policy = createPolicy({ rules: [{ tool: '*', effect: 'allow' }] });
    expect(unmatchedToolPatterns(policy, [])).toEqual([{ rule: 0, pattern: '*', setting: 'rules[0].tool' }]);
  });
});

describe('unmatchedToolPatterns with colliding names', () => {
  it('counts a rule naming the suffixed binding of a renamed tool as matching it', () => {
    const policy = createPolicy({
      rules: [
        { tool: 'lab.get_x_2', effect: 'allow' },
        { tool: 'lab.get_x_3', effect: 'allow' },
      ],
    });
    expect(unmatchedToolPatterns(policy, ['lab__get-x', 'lab__get_x']).map(({ pattern }) => pattern)).toEqual([
      'lab.get_x_3',
    ]);
  });
});
