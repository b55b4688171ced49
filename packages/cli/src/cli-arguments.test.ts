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

  it('reads --run-store and --conversation for run, and resume with a token or a run', () => {
    expect(
      parseCommandLine(['run', 'job.ts', '--runtime', 'quickjs', '--run-store', 'runs', '--conversation', 'c1']),
    ).toMatchObject({ command: 'run', runStore: 'runs', conversation: 'c1' });
    expect(parseCommandLine(['run', 'job.ts'])).toMatchObject({ runStore: undefined, conversation: undefined });
    expect(
      parseCommandLine([
        'resume',
        'pause_a',
        '--allow',
        '--run-store',
        'runs',
        '--tools',
        't.mjs',
        '--wall-time-ms',
        '500',
      ]),
    ).toEqual({
      command: 'resume',
      token: 'pause_a',
      decision: { decision: 'allow' },
      run: undefined,
      runStore: 'runs',
      tools: 't.mjs',
      policy: undefined,
      runtime: undefined,
      json: false,
      verbosity: 'normal',
      budgets: { wallTimeMs: 500 },
    });
    expect(
      parseCommandLine(['resume', 'pause_a', '--deny', '--reason', 'not now', '--run-store', 'runs']),
    ).toMatchObject({ decision: { decision: 'deny', reason: 'not now' } });
    expect(parseCommandLine(['resume', '--run', 'durable_1', '--run-store', 'runs'])).toMatchObject({
      token: undefined,
      decision: undefined,
      run: 'durable_1',
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
      [[], 'Name a command: run, resume, declarations, demo, mcp, serve or console.'],
      [
        ['launch'],
        'Unknown command "launch"; the commands are run, resume, declarations, demo, mcp, serve and console.',
      ],
      [
        ['help', 'launch'],
        'Unknown help topic "launch"; the commands are run, resume, declarations, demo, mcp, serve and console.',
      ],
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
      [
        ['run', 'a.ts', '--conversation', 'c1'],
        '--conversation keeps values between durable runs: give --run-store <directory> too.',
      ],
      [
        ['resume', '--run-store', 'runs'],
        'sluice resume needs the pause token a paused run printed, or --run <runId> to continue a run whose host stopped.',
      ],
      [
        ['resume', 'pause_x', '--run', 'r1', '--run-store', 'runs'],
        'Give sluice resume a pause token or --run <runId>, not both.',
      ],
      [
        ['resume', 'pause_x', '--run-store', 'runs'],
        'Answer the paused call with --allow or --deny [--reason <text>].',
      ],
      [['resume', 'pause_x', '--allow', '--deny', '--run-store', 'runs'], 'Choose --allow or --deny, not both.'],
      [
        ['resume', 'pause_x', '--allow', '--reason', 'ok', '--run-store', 'runs'],
        '--reason goes with --deny: it tells the program why.',
      ],
      [
        ['resume', '--run', 'r1', '--allow', '--run-store', 'runs'],
        '--allow and --deny answer a pause token; --run continues a run whose host stopped.',
      ],
      [['resume', 'pause_x', '--allow'], 'sluice resume needs --run-store <directory>, as the run was given.'],
      [['run', 'a.ts', '--run-store='], '--run-store needs a directory, or a postgres:// URL.'],
      [
        ['run', 'a.ts', '--run-store', 'runs', '--conversation='],
        '--conversation needs an id, such as the chat it belongs to.',
      ],
      [['resume', 'pause_x', 'pause_y', '--allow'], 'sluice resume takes one pause token, but also got "pause_y".'],
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
