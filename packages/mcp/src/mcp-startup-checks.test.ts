import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { binPath, labServer, resultText, startSluice } from './__fixtures__/sluice-process.js';

describe('sluice mcp policy names', () => {
  it('applies a rule written with the name the program sees, and warns about a rule naming no tool', async () => {
    const sluice = await startSluice({
      mcpServers: { lab: labServer(), broken: labServer({ LAB_MODE: 'exit-at-start' }) },
      sluice: {
        policy: {
          default: 'allow',
          rules: [
            { tool: 'lab.echo', effect: 'deny', reason: 'Echo is off.' },
            { tool: ['lab__add', 'lab__ad'], effect: 'allow' },
            { tool: 'broken__*', effect: 'deny' },
          ],
        },
      },
    });
    onTestFinished(() => sluice.close());
    await sluice.client.listTools();

    const denied = await sluice.client.callTool({
      name: 'run_code',
      arguments: { code: "try { return await lab.echo({ text: 'hi' }); } catch (error) { return error.message; }" },
    });
    expect(resultText(denied)).toContain('Permission denied: lab.echo is not allowed: Echo is off.');
    const stderr = sluice.stderr();
    expect(stderr).toContain(
      'warning: sluice.policy.rules[1].tool[1] "lab__ad" names no upstream tool, so its rule never applies',
    );
    expect(stderr).toContain('Run with --strict-policy to refuse to start instead.');
    expect(stderr).toContain(
      'sluice.policy.rules[2].tool "broken__*" cannot be checked: the broken server did not start, so its tools are unknown',
    );
    expect(stderr).not.toMatch(/rules\[0\]|"lab__add"|"broken__\*" names no upstream tool/);
  }, 60_000);

  it('exits 2 under --strict-policy, naming every rule that names no tool', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-strict-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const config = join(directory, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { lab: labServer() },
        sluice: {
          policy: {
            rules: [
              { tool: 'lab.get_env', effect: 'deny' },
              { tool: 'lab.echo', effect: 'allow' },
              { tool: 'labb__*', effect: 'allow' },
            ],
          },
        },
      }),
    );
    const child = spawn(process.execPath, [binPath, '--config', config, '--strict-policy'], { stdio: 'pipe' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    onTestFinished(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // stdin stays open: the server ends itself once the upstreams have listed their tools.
    expect(await exited).toBe(2);
    expect(stderr).toContain(
      'sluice-mcp: sluice.policy.rules[0].tool "lab.get_env" names no upstream tool; sluice.policy.rules[2].tool "labb__*" names no upstream tool. --strict-policy makes this an error.',
    );
    expect(stderr).not.toContain('lab.echo');
  }, 60_000);
});
