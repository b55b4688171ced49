import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { binPath, labServer } from './__fixtures__/sluice-process.js';

interface Spawned {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** Starts `node dist/bin.js ...args`; the process is killed, if still running, when the test ends. */
function start(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Spawned {
  const child = spawn(process.execPath, [binPath, ...args], { env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs the bin with stdin closed at once, as a client that says nothing would, and waits for it to exit. */
async function bin(args: readonly string[], env?: NodeJS.ProcessEnv) {
  const spawned = start(args, env);
  spawned.child.stdin.end();
  const code = await spawned.exited;
  return { code, stdout: spawned.stdout(), stderr: spawned.stderr() };
}

/** Writes `config` as JSON into a fresh folder removed when the test ends; returns the file's path. */
function configFile(config: unknown): string {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-mcp-bin-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** Resolves with the first stdout line that parses as a JSON-RPC response with `id`. */
function response(spawned: Spawned, id: number): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const look = () => {
      for (const line of spawned.stdout().split('\n')) {
        try {
          const message = JSON.parse(line) as Record<string, unknown>;
          if (message.id === id) {
            spawned.child.stdout.off('data', look);
            resolve(message);
            return;
          }
        } catch {
          // Not a whole line yet.
        }
      }
    };
    spawned.child.stdout.on('data', look);
    look();
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};

describe('sluice-mcp (bin)', () => {
  it('prints its own usage, listing every option and the MCP Inspector line, for --help', async () => {
    const { code, stdout, stderr } = await bin(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: sluice-mcp --config <file> \[--strict-policy\]\n/);
    for (const option of ['-c, --config <file>', '--strict-policy', '-h, --help']) expect(stdout).toContain(option);
    expect(stdout).toContain('npx @modelcontextprotocol/inspector -- sluice-mcp --config <file>');
    expect((await bin(['--port', '1', '-h'])).code).toBe(0);
  });

  it('exits 2 naming the problem when the arguments are wrong', async () => {
    const wrong = async (...args: string[]) => {
      const { code, stderr } = await bin(args);
      expect(code).toBe(2);
      expect(stderr).toContain('Usage: sluice-mcp');
      return stderr.split('\n')[0];
    };
    const cases: [string[], string][] = [
      [[], 'sluice-mcp: a config file is required: --config <file>.'],
      [['--port', '3000'], 'sluice-mcp: unknown option "--port".'],
      [['-c'], 'sluice-mcp: -c needs a file name.'],
      [['--config', '--strict-policy'], 'sluice-mcp: --config needs a file name.'],
      [['--config='], 'sluice-mcp: --config needs a file name.'],
      [['--config', 'a.json', 'b.json'], 'sluice-mcp: unexpected argument "b.json".'],
      [['--config', 'a.json', '--strict-policy=yes'], 'sluice-mcp: --strict-policy takes no value.'],
    ];
    const firstLines = await Promise.all(cases.map(([args]) => wrong(...args)));
    expect(firstLines).toEqual(cases.map(([, line]) => line));
  });

  it('exits 2 naming the file and the offending path when the config is wrong', async () => {
    const config = configFile({ mcpServers: { notes: { command: 'node', args: [1] } } });
    const { code, stderr } = await bin(['--config', config]);
    expect(code).toBe(2);
    expect(stderr).toContain(`${config}: mcpServers.notes.args[0] must be a string`);
  });

  it('exits 2 naming the runtime setting the provider refuses', async () => {
    const config = configFile({ mcpServers: { notes: { command: 'node' } }, sluice: { runtime: { wallTimeMs: -1 } } });
    const { code, stderr } = await bin([`--config=${config}`]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/sluice\.runtime: .*wallTimeMs/);
  });
});

describe('sluice-mcp with language python and no interpreter', () => {
  it('exits 2 at start-up naming the fix when the configured interpreter does not exist', async () => {
    const missing = join(tmpdir(), 'sluice-no-such-dir', 'python3');
    const config = configFile({
      mcpServers: { lab: labServer() },
      sluice: { language: 'python', runtime: { pythonExecutable: missing } },
    });
    const { code, stderr } = await bin(['--config', config]);
    expect(code).toBe(2);
    expect(stderr).toContain('sluice.language is "python", but no program can run: No usable Python interpreter:');
    expect(stderr).toContain(`${JSON.stringify(missing)} (from the pythonExecutable setting)`);
    expect(stderr).toContain('sluice.runtime.pythonExecutable');
  });

  it('exits 2 when python3 is not on PATH', async () => {
    const emptyPath = mkdtempSync(join(tmpdir(), 'sluice-empty-path-'));
    onTestFinished(() => rmSync(emptyPath, { recursive: true, force: true }));
    const config = configFile({ mcpServers: { lab: labServer() }, sluice: { language: 'python' } });
    const { SLUICE_PYTHON_EXECUTABLE: _ignored, ...environment } = process.env;
    const { code, stderr } = await bin(['--config', config], { ...environment, PATH: emptyPath });
    expect(code).toBe(2);
    expect(stderr).toContain('"python3" (from the default');
    expect(stderr).toContain('because it was not found');
    expect(stderr).toContain('sluice.runtime.pythonExecutable');
  });
});

describe('sluice-mcp and what the client sends', () => {
  it('stops with a clear stderr line when one message from the client is 10 MiB or more', async () => {
    const spawned = start(['--config', configFile({ mcpServers: { lab: labServer() } })]);
    const padding = 'x'.repeat(10 * 1024 * 1024);
    spawned.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'run_code', arguments: { code: padding } } })}\n`,
    );
    // stdin stays open: only the server's own reaction can end it.
    expect(await spawned.exited).toBe(1);
    expect(spawned.stderr()).toContain(
      'sluice-mcp: a message from the MCP client was over 10485760 bytes (10 MiB), the most one JSON-RPC line may be; the connection is closed and the server stops.',
    );
  }, 60_000);

  it('says on stderr that it skipped a line that is not JSON-RPC, and keeps answering', async () => {
    const spawned = start(['--config', configFile({ mcpServers: { lab: labServer() } })]);
    spawned.child.stdin.write(`this is not json\n${JSON.stringify(initialize)}\n`);
    const answer = await response(spawned, 1);
    expect(answer.result).toMatchObject({ serverInfo: { name: 'sluice' } });
    expect(spawned.stderr()).toContain('sluice-mcp: could not read a message from the MCP client:');
    spawned.child.stdin.end();
    expect(await spawned.exited).toBe(0);
  });
});
