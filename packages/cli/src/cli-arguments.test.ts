import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './cli-arguments.js';
import { UsageError } from './cli-io.js';

function problem(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be refused`);
}

describe('parseCommandLine', () => {
  it('reads run with its program and options', () => {
    expect(parseCommandLine(['run', 'job.ts', '--tools', 'tools.ts', '--policy', 'p.json', '--json'])).toEqual({
      command: 'run',
      program: 'job.ts',
      tools: 'tools.ts',
      policy: 'p.json',
      language: undefined,
      json: true,
      verbosity: 'normal',
      budgets: {},
    });
    expect(parseCommandLine(['run', '--tools=t.js', 'job.py', '-q'])).toMatchObject({
      program: 'job.py',
      tools: 't.js',
      json: false,
      verbosity: 'quiet',
    });
    expect(parseCommandLine(['run', 'job.ts', '--verbose'])).toMatchObject({ verbosity: 'verbose' });
  });

  it('reads - as the program on stdin, with an optional --language', () => {
    expect(parseCommandLine(['run', '-'])).toMatchObject({ command: 'run', program: '-', language: undefined });
    expect(parseCommandLine(['run', '-', '--language', 'python'])).toMatchObject({ program: '-', language: 'python' });
  });

  it('reads budget flags as numbers where they are decimal numbers, and keeps other text for the provider to refuse', () => {
    const command = parseCommandLine([
      'run',
      'job.ts',
      '--wall-time-ms',
      '5000',
      '--memory-bytes=268435456',
      '--cpu-time-ms',
      '1.5',
      '--host-calls',
      '5s',
      '--source-bytes=-3',
    ]);
    expect(command).toMatchObject({
      budgets: { wallTimeMs: 5000, memoryBytes: 268435456, cpuTimeMs: 1.5, hostCalls: '5s', sourceBytes: -3 },
    });
    expect(parseCommandLine(['declarations', '--tools', 't.ts', '--log-bytes', '100'])).toMatchObject({
      budgets: { logBytes: 100 },
    });
  });

  it('reads --runtime for run and declarations, leaving it unset by default', () => {
    expect(parseCommandLine(['run', 'job.ts', '--runtime', 'quickjs'])).toMatchObject({ runtime: 'quickjs' });
    expect(parseCommandLine(['run', 'job.ts', '--runtime=worker-thread'])).toMatchObject({ runtime: 'worker-thread' });
    expect(parseCommandLine(['run', 'job.ts'])).toHaveProperty('runtime', undefined);
    expect(parseCommandLine(['declarations', '--tools', 't.ts', '--runtime', 'quickjs'])).toMatchObject({
      command: 'declarations',
      runtime: 'quickjs',
    });
  });

  it('reads declarations, defaulting the language to typescript', () => {
    expect(parseCommandLine(['declarations', '--tools', 't.ts'])).toEqual({
      command: 'declarations',
      tools: 't.ts',
      language: 'typescript',
      policy: undefined,
      verbosity: 'normal',
      budgets: {},
    });
    expect(parseCommandLine(['declarations', '--tools', 't.ts', '--language', 'python']).command).toBe('declarations');
  });

  it('reads help for the whole command and for each command, and version', () => {
    for (const argv of [['--help'], ['-h'], ['help']]) expect(parseCommandLine(argv)).toEqual({ command: 'help' });
    for (const topic of ['run', 'declarations', 'demo', 'mcp'] as const) {
      expect(parseCommandLine(['help', topic])).toEqual({ command: 'help', topic });
    }
    for (const topic of ['run', 'declarations', 'demo'] as const) {
      expect(parseCommandLine([topic, '--help'])).toEqual({ command: 'help', topic });
      expect(parseCommandLine([topic, '-h', '--no-such-option'])).toEqual({ command: 'help', topic });
    }
    expect(parseCommandLine(['--version'])).toEqual({ command: 'version' });
  });

  it('hands everything after mcp to sluice mcp unread', () => {
    expect(parseCommandLine(['mcp', '--config', 'c.json', '--help'])).toEqual({
      command: 'mcp',
      argv: ['--config', 'c.json', '--help'],
    });
  });

  it('refuses each bad command line with one sentence', () => {
    const cases: [string[], string][] = [
      [[], 'Name a command: run, declarations, demo or mcp.'],
      [['launch'], 'Unknown command "launch"; the commands are run, declarations, demo and mcp.'],
      [['help', 'launch'], 'Unknown help topic "launch"; the commands are run, declarations, demo and mcp.'],
      [['run'], 'sluice run needs a program file, such as program.ts or program.py, or - for stdin.'],
      [['run', 'a.ts', 'b.ts'], 'sluice run takes one program file, but also got "b.ts".'],
      [['run', 'a.ts', '--fast'], 'Unknown option --fast for sluice run.'],
      [['run', 'a.ts', '--tools'], 'Option --tools needs a value.'],
      [
        ['run', 'a.ts', '--wall-time-ms', '-5'],
        'Option --wall-time-ms needs a value; write --wall-time-ms=<value> for one that starts with "-".',
      ],
      [['run', 'a.ts', '--json=yes'], 'Option --json takes no value.'],
      [['run', 'a.ts', '--quiet', '--verbose'], 'Choose --quiet or --verbose, not both.'],
      [['run', '-', '--language', 'ruby'], '--language must be typescript or python, got "ruby".'],
      [['run', 'a.ts', '--runtime', 'v8'], '--runtime must be worker-thread or quickjs, got "v8".'],
      [['run', 'a.ts', '--runtime'], 'Option --runtime needs a value.'],
      [
        ['declarations', '--tools', 't.ts', '--runtime', 'python'],
        '--runtime must be worker-thread or quickjs, got "python".',
      ],
      [['demo', '--fast'], 'Unknown option --fast for sluice demo.'],
      [['demo', 'extra'], 'sluice demo takes no file arguments, but also got "extra".'],
      [['declarations'], 'sluice declarations needs --tools <module>.'],
      [['declarations', '--tools', 't.ts', '--verbose'], 'Unknown option --verbose for sluice declarations.'],
      [
        ['declarations', '--tools', 't.ts', '--language', 'ruby'],
        '--language must be typescript or python, got "ruby".',
      ],
    ];
    for (const [argv, message] of cases) {
      expect(problem(argv)).toBe(message);
      expect(message.split(/[.;] /).length).toBeLessThanOrEqual(2);
    }
  });
});
