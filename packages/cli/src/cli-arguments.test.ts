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
      json: true,
    });
    expect(parseCommandLine(['run', '--tools=t.js', 'job.py'])).toEqual({
      command: 'run',
      program: 'job.py',
      tools: 't.js',
      policy: undefined,
      json: false,
    });
  });

  it('reads declarations, defaulting the language to typescript', () => {
    expect(parseCommandLine(['declarations', '--tools', 't.ts'])).toEqual({
      command: 'declarations',
      tools: 't.ts',
      language: 'typescript',
      policy: undefined,
    });
    expect(parseCommandLine(['declarations', '--tools', 't.ts', '--language', 'python']).command).toBe('declarations');
  });

  it('reads demo, help and version', () => {
    expect(parseCommandLine(['demo'])).toEqual({ command: 'demo' });
    for (const argv of [['--help'], ['-h'], ['help'], ['run', '--help']]) {
      expect(parseCommandLine(argv)).toEqual({ command: 'help' });
    }
    expect(parseCommandLine(['--version'])).toEqual({ command: 'version' });
  });

  it('refuses each bad command line with one sentence', () => {
    const cases: [string[], string][] = [
      [[], 'Name a command: run, declarations or demo.'],
      [['launch'], 'Unknown command "launch"; the commands are run, declarations and demo.'],
      [['run'], 'sluice run needs a program file, such as program.ts or program.py.'],
      [['run', 'a.ts', 'b.ts'], 'sluice run takes one program file, but also got "b.ts".'],
      [['run', 'a.ts', '--verbose'], 'Unknown option --verbose for sluice run; it takes --tools, --policy, --json.'],
      [['run', 'a.ts', '--tools'], 'Option --tools needs a value.'],
      [['run', 'a.ts', '--json=yes'], 'Option --json takes no value.'],
      [['demo', '--fast'], 'Unknown option --fast for sluice demo; it takes no options.'],
      [['demo', 'extra'], 'sluice demo takes no file arguments, but also got "extra".'],
      [['declarations'], 'sluice declarations needs --tools <module>.'],
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
