import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { binPath } from './__fixtures__/sluice-process.js';

const run = promisify(execFile);

async function bin(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [binPath, ...args], { timeout: 30_000 });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('sluice mcp (bin)', () => {
  it('prints usage for --help', async () => {
    const { code, stderr } = await bin('--help');
    expect(code).toBe(0);
    expect(stderr).toContain('Usage: sluice mcp --config <file>');
  });

  it('exits 2 naming the problem when the arguments are wrong', async () => {
    expect(await bin()).toMatchObject({ code: 2, stderr: expect.stringContaining('a config file is required') });
    expect(await bin('--port', '3000')).toMatchObject({ code: 2, stderr: expect.stringContaining('"--port"') });
  });

  it('exits 2 naming the file and the offending path when the config is wrong', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-bin-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const config = join(directory, 'config.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { notes: { command: 'node', args: [1] } } }));
    const { code, stderr } = await bin('--config', config);
    expect(code).toBe(2);
    expect(stderr).toContain(`${config}: mcpServers.notes.args[0] must be a string, got 1.`);
  });

  it('exits 2 naming the runtime setting the provider refuses', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-bin-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const config = join(directory, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { notes: { command: 'node' } }, sluice: { runtime: { wallTimeMs: -1 } } }),
    );
    const { code, stderr } = await bin(`--config=${config}`);
    expect(code).toBe(2);
    expect(stderr).toMatch(/sluice\.runtime: .*wallTimeMs/);
  });
});
