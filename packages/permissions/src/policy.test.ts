import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { createPolicy, isPolicy } from './policy.js';
import type { PolicyDefinition } from './policy-definition.js';
import { evaluatePolicy, mayBeAllowed } from './policy-evaluate.js';
import { loadPolicyFile, parsePolicy } from './policy-file.js';

function settingOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) return `${error.setting}: ${error.message}`;
    throw error;
  }
  throw new Error('expected InvalidSettingsError');
}

describe('evaluatePolicy', () => {
  const policy = createPolicy({
    rules: [
      { tool: 'fs.read-file', effect: 'allow', when: { path: { within: ['/srv/data'] } }, description: 'reads' },
      { tool: 'fs.*', effect: 'deny', reason: 'the filesystem is read-only here' },
      { tool: ['github__create_issue', 'github__comment'], effect: 'ask' },
      { tool: 'search', effect: 'allow' },
      { tool: 'search', effect: 'deny' },
    ],
  });

  it('lets the first matching rule decide', () => {
    expect(evaluatePolicy(policy, 'search', null)).toEqual({ effect: 'allow', rule: { index: 3 } });
    expect(evaluatePolicy(policy, 'fs.write-file', { path: '/srv/data/x' })).toEqual({
      effect: 'deny',
      rule: { index: 1 },
      reason: 'the filesystem is read-only here',
    });
    expect(evaluatePolicy(policy, 'github__comment', {})).toEqual({ effect: 'ask', rule: { index: 2 } });
  });

  it('falls through a rule whose argument conditions do not hold', () => {
    expect(evaluatePolicy(policy, 'fs.read-file', { path: '/srv/data/a' })).toEqual({
      effect: 'allow',
      rule: { index: 0, description: 'reads' },
    });
    expect(evaluatePolicy(policy, 'fs.read-file', { path: '/srv/data/../etc/passwd' }).rule?.index).toBe(1);
  });

  it('denies by default, and says which condition was unmet', () => {
    const strict = createPolicy({ rules: [{ tool: 'read', effect: 'allow', when: { path: { within: ['/srv'] } } }] });
    expect(evaluatePolicy(strict, 'other', {})).toEqual({ effect: 'deny' });
    expect(evaluatePolicy(strict, 'read', { path: '/etc' })).toEqual({
      effect: 'deny',
      unmet: 'rule 0: argument "path": "/etc" is not within /srv',
    });
    expect(evaluatePolicy(strict, 'read', {})).toEqual({ effect: 'deny', unmet: 'rule 0: argument "path" is missing' });
  });

  it('uses the default the policy names', () => {
    const open = createPolicy({ default: 'allow', rules: [{ tool: 'rm', effect: 'deny' }] });
    expect(evaluatePolicy(open, 'ls', null)).toEqual({ effect: 'allow' });
    const asking = createPolicy({ default: 'ask', rules: [] });
    expect(evaluatePolicy(asking, 'ls', null)).toEqual({ effect: 'ask' });
    const reasoned = createPolicy({ defaultReason: 'ask an operator to enable it', rules: [] });
    expect(evaluatePolicy(reasoned, 'ls', null)).toEqual({ effect: 'deny', reason: 'ask an operator to enable it' });
  });

  it('matches tool-name patterns with * and ? only', () => {
    const globbed = createPolicy({ rules: [{ tool: ['mcp__*__read', 'v?'], effect: 'allow' }] });
    expect(evaluatePolicy(globbed, 'mcp__github__read', null).effect).toBe('allow');
    expect(evaluatePolicy(globbed, 'mcp____read', null).effect).toBe('allow');
    expect(evaluatePolicy(globbed, 'mcp__github__readme', null).effect).toBe('deny');
    expect(evaluatePolicy(globbed, 'v1', null).effect).toBe('allow');
    expect(evaluatePolicy(globbed, 'v10', null).effect).toBe('deny');
    const literal = createPolicy({ rules: [{ tool: 'a.b(c)+', effect: 'allow' }] });
    expect(evaluatePolicy(literal, 'a.b(c)+', null).effect).toBe('allow');
    expect(evaluatePolicy(literal, 'aXb(c)', null).effect).toBe('deny');
  });

  it('checks equality, membership and patterns on arguments', () => {
    const checks = createPolicy({
      rules: [
        {
          tool: 'http',
          effect: 'allow',
          when: {
            method: { oneOf: ['GET', 'HEAD'] },
            url: { matches: '^https://api\\.example\\.com/' },
            'options.mode': { equals: { cache: 'no-store', retry: false } },
          },
        },
      ],
    });
    const good = {
      method: 'GET',
      url: 'https://api.example.com/v1',
      options: { mode: { retry: false, cache: 'no-store' } },
    };
    expect(evaluatePolicy(checks, 'http', good).effect).toBe('allow');
    expect(evaluatePolicy(checks, 'http', { ...good, method: 'POST' }).unmet).toBe(
      'rule 0: argument "method": must be one of "GET", "HEAD"',
    );
    expect(evaluatePolicy(checks, 'http', { ...good, url: 'https://api.example.com.evil.io/' }).unmet).toMatch(
      /argument "url": "https:\/\/api\.example\.com\.evil\.io\/" must match/,
    );
    expect(evaluatePolicy(checks, 'http', { ...good, options: { mode: { cache: 'no-store' } } }).unmet).toMatch(
      /argument "options.mode": must equal/,
    );
  });

  it('requires every element of an array argument to pass matches and within', () => {
    const many = createPolicy({ rules: [{ tool: 'cat', effect: 'allow', when: { paths: { within: ['/srv'] } } }] });
    expect(evaluatePolicy(many, 'cat', { paths: ['/srv/a', '/srv/b'] }).effect).toBe('allow');
    expect(evaluatePolicy(many, 'cat', { paths: ['/srv/a', '/etc/shadow'] }).unmet).toBe(
      'rule 0: argument "paths": element 1: "/etc/shadow" is not within /srv',
    );
  });

  it('reads arguments through own properties only, never the prototype', () => {
    const own = createPolicy({ rules: [{ tool: 't', effect: 'allow', when: { constructor: { matches: 'Object' } } }] });
    expect(evaluatePolicy(own, 't', {}).unmet).toBe('rule 0: argument "constructor" is missing');
    expect(evaluatePolicy(own, 't', 'not an object').unmet).toBe('rule 0: argument "constructor" is missing');
  });

  it('checks the whole input with $', () => {
    const whole = createPolicy({ rules: [{ tool: 'echo', effect: 'allow', when: { $: { matches: '^[a-z]+$' } } }] });
    expect(evaluatePolicy(whole, 'echo', 'hello').effect).toBe('allow');
    expect(evaluatePolicy(whole, 'echo', 'Hello').unmet).toMatch(/^rule 0: the input: "Hello" must match/);
  });
});

describe('mayBeAllowed', () => {
  it('is false only when a denial comes before any rule that could allow', () => {
    const policy = createPolicy({
      rules: [
        { tool: 'a', effect: 'deny', when: { x: { equals: 1 } } },
        { tool: 'a', effect: 'allow' },
        { tool: 'b', effect: 'deny' },
        { tool: '*', effect: 'ask', when: { y: { equals: 1 } } },
      ],
    });
    expect(mayBeAllowed(policy, 'a')).toBe(true);
    expect(mayBeAllowed(policy, 'b')).toBe(false);
    expect(mayBeAllowed(policy, 'c')).toBe(true);
    expect(mayBeAllowed(createPolicy({ rules: [] }), 'c')).toBe(false);
  });
});

describe('createPolicy', () => {
  it('rejects a malformed policy with the path of the offending part', () => {
    const bad = (definition: unknown) => settingOf(() => createPolicy(definition as PolicyDefinition));
    expect(bad('allow')).toBe('policy: Policy must be an object, got "allow".');
    expect(bad({})).toBe('rules: Policy rules must be an array of rules, got nothing.');
    expect(bad({ rules: [], defaults: 'allow' })).toMatch(/^defaults: .*is not a known key/);
    expect(bad({ rules: [], default: 'permit' })).toMatch(/^default: .*must be "allow", "deny" or "ask", got "permit"/);
    expect(bad({ rules: [{ tool: 'a', effect: 'allow' }, 'deny'] })).toMatch(/^rules\[1\]: .*must be an object/);
    expect(bad({ rules: [{ tool: 'a', effect: 'allow', effct: 'deny' }] })).toMatch(
      /^rules\[0\]\.effct: .*not a known key/,
    );
    expect(bad({ rules: [{ tool: 'a', effect: 'permit' }] })).toMatch(/^rules\[0\]\.effect: /);
    expect(bad({ rules: [{ effect: 'allow' }] })).toMatch(/^rules\[0\]\.tool: .*got nothing/);
    expect(bad({ rules: [{ tool: ['a', ''], effect: 'allow' }] })).toMatch(
      /^rules\[0\]\.tool\[1\]: .*non-empty string/,
    );
    expect(bad({ rules: [{ tool: 'a', effect: 'allow', reason: 'x' }] })).toMatch(
      /^rules\[0\]\.reason: .*only for rules/,
    );
    expect(bad({ default: 'allow', defaultReason: 'x', rules: [] })).toMatch(/^defaultReason: /);
  });

  it('rejects malformed argument conditions with their path', () => {
    const when = (condition: unknown, index = 3) => {
      const rules: unknown[] = [0, 1, 2, 3].map(() => ({ tool: 'x', effect: 'allow' }));
      rules[index] = { tool: 'x', effect: 'allow', when: condition };
      return settingOf(() => createPolicy({ rules } as unknown as PolicyDefinition));
    };
    expect(when({ path: { matches: '(' } })).toMatch(
      /^rules\[3\]\.when\.path\.matches: .*not a valid regular expression/,
    );
    expect(when({ path: { within: ['relative/root'] } })).toMatch(/^rules\[3\]\.when\.path\.within: .*is not absolute/);
    expect(when({ path: { within: [] } })).toMatch(/^rules\[3\]\.when\.path\.within: .*non-empty array/);
    expect(when({ path: { within: ['/a', 'C:\\b'] } })).toMatch(/^rules\[3\]\.when\.path\.within: .*mixes/);
    expect(when({ path: { inside: ['/a'] } })).toMatch(/^rules\[3\]\.when\.path\.inside: .*not a known key/);
    expect(when({ path: {} })).toMatch(/^rules\[3\]\.when\.path: .*needs at least one of/);
    expect(when({ path: { relativeTo: '/a' } })).toMatch(/^rules\[3\]\.when\.path: .*needs at least one/);
    expect(when({ path: { equals: 1, relativeTo: '/a' } })).toMatch(
      /^rules\[3\]\.when\.path\.relativeTo: .*with within/,
    );
    expect(when({ path: { oneOf: 'a' } })).toMatch(/^rules\[3\]\.when\.path\.oneOf: .*must be an array/);
    expect(when({ 'a..b': { equals: 1 } })).toMatch(/^rules\[3\]\.when\.a\.\.b: .*must name an argument/);
    expect(when(['path'])).toMatch(/^rules\[3\]\.when: .*must be an object/);
  });

  it('rejects values that are not JSON', () => {
    const withFunction = { rules: [{ tool: 'a', effect: 'allow', when: { x: { equals: () => 1 } } }] };
    expect(settingOf(() => createPolicy(withFunction as unknown as PolicyDefinition))).toMatch(
      /^rules\[0\]\.when\.x\.equals: .*must be JSON/,
    );
    expect(
      settingOf(() => createPolicy({ rules: [{ tool: 'a', effect: 'allow', when: { x: { equals: Number.NaN } } }] })),
    ).toMatch(/must be JSON, got NaN/);
  });

  it('copies the definition, so changing it afterwards changes nothing', () => {
    const definition = { rules: [{ tool: 'a', effect: 'allow' as const }] };
    const policy = createPolicy(definition);
    definition.rules.push({ tool: 'b', effect: 'allow' });
    expect(evaluatePolicy(policy, 'b', null).effect).toBe('deny');
    expect(Object.isFrozen(policy.definition.rules)).toBe(true);
    expect(isPolicy(policy)).toBe(true);
    expect(isPolicy(definition)).toBe(false);
  });
});

describe('parsePolicy', () => {
  it('loads a policy from JSON text', () => {
    const policy = parsePolicy('{"$schema": "./policy.schema.json", "rules": [{"tool": "search", "effect": "allow"}]}');
    expect(evaluatePolicy(policy, 'search', null).effect).toBe('allow');
  });

  it('rejects text that is not JSON, and malformed rules by path', () => {
    expect(settingOf(() => parsePolicy('{"rules": ['))).toMatch(/^policy: Policy is not valid JSON/);
    expect(settingOf(() => parsePolicy('{"rules": [{"tool": "a", "effect": "alow"}]}'))).toMatch(
      /^rules\[0\]\.effect: /,
    );
  });
});

describe('loadPolicyFile', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sluice-permissions-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('reads a policy from a file', async () => {
    const file = join(folder, 'good.json');
    writeFileSync(file, JSON.stringify({ rules: [{ tool: 'search', effect: 'allow' }] }));
    const policy = await loadPolicyFile(file);
    expect(evaluatePolicy(policy, 'search', null).effect).toBe('allow');
  });

  it('names the file and the offending rule when the policy is malformed', async () => {
    const file = join(folder, 'bad.json');
    writeFileSync(file, JSON.stringify({ rules: [{ tool: 'a', effect: 'allow', when: { path: { matches: '[' } } }] }));
    const error = await loadPolicyFile(file).catch((caught: unknown) => caught);
    expect(InvalidSettingsError.isInstance(error)).toBe(true);
    expect((error as InvalidSettingsError).setting).toBe('rules[0].when.path.matches');
    expect((error as Error).message).toContain(file);
  });

  it('rejects a file that cannot be read', async () => {
    await expect(loadPolicyFile(join(folder, 'missing.json'))).rejects.toThrow(/could not be read/);
  });
});
