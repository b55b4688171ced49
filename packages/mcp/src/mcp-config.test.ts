import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { evaluatePolicy } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMcpConfig, parseMcpConfig } from './mcp-config.js';

const base = '/srv/sluice';
const minimal = { mcpServers: { notes: { command: 'node', args: ['notes.mjs'] } } };

async function problem(value: unknown): Promise<{ setting: string; message: string }> {
  try {
    await parseMcpConfig(value, base);
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    return { setting: error.setting, message: error.message };
  }
  throw new Error('expected the config to be refused');
}

describe('parseMcpConfig', () => {
  it('reads the common mcpServers format with defaults for everything else', async () => {
    const config = await parseMcpConfig(minimal, base);
    expect(config.upstreams).toEqual([{ name: 'notes', command: 'node', args: ['notes.mjs'], env: {}, cwd: base }]);
    expect(config.language).toBe('typescript');
    expect(config.policyConfigured).toBe(false);
    expect(evaluatePolicy(config.policy, 'notes__anything', {}).effect).toBe('allow');
    expect(config.startTimeoutMs).toBe(30_000);
    expect(config.progressIntervalMs).toBe(1_000);
  });

  it('reads Sluice settings, env, type and a relative cwd', async () => {
    const config = await parseMcpConfig(
      {
        mcpServers: { gh: { type: 'stdio', command: 'gh-mcp', env: { TOKEN: 'x' }, cwd: 'servers' } },
        sluice: {
          language: 'python',
          policy: { rules: [{ tool: 'gh__*', effect: 'allow' }] },
          runtime: { wallTimeMs: 60_000 },
          startTimeoutMs: 5_000,
          progressIntervalMs: 250,
          declarationsTokenBudget: 4_000,
          resultTokenBudget: 2_000,
        },
      },
      base,
    );
    expect(config.upstreams[0]).toEqual({
      name: 'gh',
      command: 'gh-mcp',
      args: [],
      env: { TOKEN: 'x' },
      cwd: `${base}/servers`,
    });
    expect(config).toMatchObject({
      language: 'python',
      policyConfigured: true,
      runtime: { wallTimeMs: 60_000 },
      startTimeoutMs: 5_000,
      progressIntervalMs: 250,
      declarationsTokenBudget: 4_000,
      resultTokenBudget: 2_000,
    });
    expect(evaluatePolicy(config.policy, 'other__x', {}).effect).toBe('deny');
  });

  it.each([
    [[], '(config)'],
    [{}, 'mcpServers'],
    [{ mcpServers: {} }, 'mcpServers'],
    [{ ...minimal, extra: 1 }, 'extra'],
    [{ mcpServers: { notes: { args: [] } } }, 'mcpServers.notes.command'],
    [{ mcpServers: { notes: { command: 'x', args: ['ok', 3] } } }, 'mcpServers.notes.args[1]'],
    [{ mcpServers: { notes: { command: 'x', env: { A: 1 } } } }, 'mcpServers.notes.env.A'],
    [{ mcpServers: { notes: { command: 'x', disabled: true } } }, 'mcpServers.notes.disabled'],
    [{ mcpServers: { notes: { url: 'http://localhost:3000/mcp' } } }, 'mcpServers.notes.url'],
    [{ mcpServers: { notes: { type: 'sse', command: 'x' } } }, 'mcpServers.notes.type'],
    [{ mcpServers: { 'a.b': { command: 'x' } } }, 'mcpServers.a.b'],
    [{ mcpServers: { a__b: { command: 'x' } } }, 'mcpServers.a__b'],
    [{ mcpServers: { sluice: { command: 'x' } } }, 'mcpServers.sluice'],
    [{ mcpServers: { 'my-notes': { command: 'x' }, my_notes: { command: 'y' } } }, 'mcpServers.my_notes'],
    [{ ...minimal, sluice: { language: 'ruby' } }, 'sluice.language'],
    [{ ...minimal, sluice: { budget: 1 } }, 'sluice.budget'],
    [{ ...minimal, sluice: { startTimeoutMs: 1.5 } }, 'sluice.startTimeoutMs'],
    [{ ...minimal, sluice: { runtime: [] } }, 'sluice.runtime'],
    [{ ...minimal, sluice: { policy: 7 } }, 'sluice.policy'],
    [{ ...minimal, sluice: { policy: { rules: [{ tool: 'x', effect: 'maybe' }] } } }, 'sluice.policy.rules[0].effect'],
  ])('refuses %j, naming %s', async (value, setting) => {
    const refused = await problem(value);
    expect(refused.setting).toBe(setting);
    const named = setting.startsWith('sluice.policy.') ? setting.slice('sluice.policy.'.length) : setting;
    expect(refused.message).toContain(setting === '(config)' ? 'must be an object' : named);
  });
});

describe('loadMcpConfig', () => {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-config-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('resolves a policy file and cwd against the config file folder', async () => {
    writeFileSync(join(directory, 'policy.json'), JSON.stringify({ default: 'allow', rules: [] }));
    writeFileSync(join(directory, 'config.json'), JSON.stringify({ ...minimal, sluice: { policy: './policy.json' } }));
    const config = await loadMcpConfig(join(directory, 'config.json'));
    expect(config.upstreams[0]!.cwd).toBe(directory);
    expect(evaluatePolicy(config.policy, 'notes__x', {}).effect).toBe('allow');
  });

  it('names the file and the path in the file when something is wrong', async () => {
    writeFileSync(join(directory, 'bad.json'), JSON.stringify({ mcpServers: { notes: { command: '' } } }));
    await expect(loadMcpConfig(join(directory, 'bad.json'))).rejects.toThrow(
      /bad\.json: mcpServers\.notes\.command must be a non-empty string/,
    );
    writeFileSync(join(directory, 'broken.json'), '{ "mcpServers": ');
    await expect(loadMcpConfig(join(directory, 'broken.json'))).rejects.toThrow(/broken\.json is not valid JSON/);
    await expect(loadMcpConfig(join(directory, 'missing.json'))).rejects.toThrow(/missing\.json could not be read/);
    writeFileSync(join(directory, 'nopolicy.json'), JSON.stringify({ ...minimal, sluice: { policy: 'none.json' } }));
    await expect(loadMcpConfig(join(directory, 'nopolicy.json'))).rejects.toThrow(
      /sluice\.policy names a file that could not be read/,
    );
  });
});
