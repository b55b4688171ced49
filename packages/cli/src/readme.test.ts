import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSluice } from './cli-process.test-helper.js';

// The root README's "Durable runs" session, run as written from packages/cli/examples (with the run
// store in a temporary directory): the same commands must print the same lines, up to the run id,
// the tokens, the expiry and the timings.
const packageDir = join(import.meta.dirname, '..');
const examples = join(packageDir, 'examples');
const readme = readFileSync(join(packageDir, '..', '..', 'README.md'), 'utf8');
const temp = mkdtempSync(join(tmpdir(), 'sluice-cli-readme-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Step {
  readonly args: string[];
  readonly output: string[];
  /** Present when the README shows it with `echo $?`. */
  readonly exitCode?: number;
}

/** The commands of the first `text` block after `heading`, each with the lines it printed. */
function session(heading: string): Step[] {
  const start = readme.indexOf(heading);
  expect(start, heading).toBeGreaterThan(-1);
  const open = readme.indexOf('```text\n', start) + '```text\n'.length;
  const lines = readme.slice(open, readme.indexOf('\n```', open)).split('\n');
  const steps: { args: string[]; output: string[]; exitCode?: number }[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line === '$ echo $?') {
      steps.at(-1)!.exitCode = Number(lines[++index]);
    } else if (line.startsWith('$ npx sluice ')) {
      steps.push({ args: shellWords(line.slice('$ npx sluice '.length)), output: [] });
    } else {
      steps.at(-1)!.output.push(line);
    }
  }
  return steps;
}

/** Splits a command line as the README writes it: spaces, and single quotes around a word. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

/** A line with what differs between two sessions replaced: ids, tokens, times, measurements. */
function normal(line: string): string {
  return line
    .replaceAll(/durable_[0-9a-f-]{36}/g, 'durable_<id>')
    .replaceAll(/pause_[\w-]+/g, 'pause_<token>')
    .replaceAll(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replaceAll(/\d+ (ms|MiB)/g, 'n $1')
    .replaceAll(temp, '.sluice');
}

describe('the README', () => {
  it('shows a paused approval resumed from the CLI as the command prints it', { timeout: 180_000 }, async () => {
    const steps = session('## Durable runs');
    expect(steps.length).toBeGreaterThanOrEqual(2);
    // The README's tokens stand for the ones this session's runs print, in order.
    const tokens = new Map<string, string>();
    for (const step of steps) {
      const args = step.args.map((arg) => tokens.get(arg) ?? arg.replace('.sluice/runs', join(temp, 'runs')));
      // As `npx sluice` starts it (runSluice says so), so the resume commands it prints start with npx too.
      const { code, stdout, stderr } = await runSluice(args, examples);
      // A terminal interleaves the two streams; `sluice` writes its own lines, prefixed, to stderr.
      const printed = [...stdout.split('\n'), ...stderr.split('\n')].filter((line) => line !== '');
      const expected = step.output.filter((line) => line.startsWith('sluice: '));
      expect(
        stderr
          .split('\n')
          .filter((line) => line !== '')
          .map(normal),
        stderr,
      ).toEqual(expected.map(normal));
      expect(
        stdout.split('\n').filter((line) => line !== ''),
        stdout,
      ).toEqual(step.output.filter((line) => !line.startsWith('sluice: ')));
      expect(code).toBe(step.exitCode ?? (stderr.includes('sluice: paused:') ? 3 : 0));
      const written = step.output.find((line) => line.includes('continue with:'))?.match(/pause_[\w-]+/)?.[0];
      const real = printed.find((line) => line.includes('continue with:'))?.match(/pause_[\w-]+/)?.[0];
      if (written !== undefined && real !== undefined) tokens.set(written, real);
    }
  });
});

describe('the README, against the demo', () => {
  it('shows the denied call as `npm run demo` prints it, up to the timings', { timeout: 300_000 }, async () => {
    const start = readme.indexOf('## What the model sees');
    const open = readme.indexOf('```text\n', start) + '```text\n'.length;
    const shown = readme.slice(open, readme.indexOf('\n```', open)).split('\n');
    const { code, stdout } = await runSluice(['demo'], packageDir);
    expect(code).toBe(0);
    const printed = stdout.split('\n').map(measured);
    const first = printed.indexOf(measured(shown[0]!));
    expect(first, stdout).toBeGreaterThan(-1);
    expect(printed.slice(first, first + shown.length)).toEqual(shown.map(measured));
  });
});

/** A line with its measurements (milliseconds, MiB) replaced: they differ from run to run. */
function measured(line: string): string {
  return line.replaceAll(/\d+(\.\d+)? (ms|MiB)/g, 'n $2');
}
