import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReadOutputTool } from './read-output-tool.js';
import { type OutputPage, ResultSpill } from './result-spill.js';

const directories: string[] = [];
function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-spill-test-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  vi.useRealTimers();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('ResultSpill', () => {
  it('refuses a retention that is not an integer from one second to seven days', () => {
    for (const retentionMs of [0, 999, 1.5, 604_800_001, Number.NaN]) {
      expect(() => new ResultSpill({ retentionMs })).toThrow(
        /spillRetentionMs must be an integer from 1000 to 604800000/,
      );
    }
    expect(new ResultSpill().retentionMs).toBe(3_600_000);
  });

  it('does no I/O until the first write', () => {
    const directory = join(scratch(), 'later');
    new ResultSpill({ directory });
    expect(existsSync(directory)).toBe(false);
  });

  it('removes a kept text when its retention ends', () => {
    vi.useFakeTimers();
    const spill = new ResultSpill({ directory: scratch(), retentionMs: 60_000 });
    const kept = spill.write('run_1', 'all of it');
    if (!('id' in kept)) throw new Error(kept.error);
    vi.advanceTimersByTime(59_999);
    expect(readFileSync(kept.path, 'utf8')).toBe('all of it');
    vi.advanceTimersByTime(1);
    expect(existsSync(kept.path)).toBe(false);
    expect(spill.read('run_1', 0, 100)).toBeUndefined();
  });

  it('sweeps the folders of spills whose process ended, or older than a week, and nothing else', () => {
    const directory = scratch();
    const ended = join(directory, 'sluice-results-999999999-AbCdEf');
    const weekOld = join(directory, `sluice-results-${process.pid}-OldOld`);
    const alive = join(directory, `sluice-results-${process.pid}-Fresh1`);
    for (const folder of [ended, weekOld, alive]) {
      mkdirSync(folder);
      writeFileSync(join(folder, 'sluice-output-run_x.txt'), 'x');
    }
    writeFileSync(join(directory, 'notes.txt'), 'not ours');
    const eightDays = Date.now() / 1000 - 8 * 86_400;
    utimesSync(weekOld, eightDays, eightDays);
    const spill = new ResultSpill({ directory });
    const kept = spill.write('run_new', 'new');
    if (!('id' in kept)) throw new Error(kept.error);
    const left = readdirSync(directory);
    expect(left).toContain('notes.txt');
    expect(left).toContain(`sluice-results-${process.pid}-Fresh1`);
    expect(left).not.toContain('sluice-results-999999999-AbCdEf');
    expect(left).not.toContain(`sluice-results-${process.pid}-OldOld`);
    expect(dirname(kept.path)).toMatch(new RegExp(`sluice-results-${process.pid}-[A-Za-z0-9]{6}$`));
    expect(statSync(dirname(kept.path)).mode & 0o777).toBe(0o700);
    spill.dispose();
  });

  it('keeps a retention of its own: a spill with a short one never removes what another keeps longer', () => {
    vi.useFakeTimers();
    const directory = scratch();
    const patient = new ResultSpill({ directory, retentionMs: 3_600_000 });
    const hasty = new ResultSpill({ directory, retentionMs: 1_000 });
    patient.write('run_a', 'kept for an hour');
    vi.advanceTimersByTime(1_200);
    hasty.write('run_b', 'kept for a second');
    vi.advanceTimersByTime(1_200);
    expect(patient.read('run_a', 0, 100)?.text).toBe('kept for an hour');
    expect(hasty.read('run_b', 0, 100)).toBeUndefined();
    patient.dispose();
    hasty.dispose();
  });

  it('never serves a file swapped for a link to another file', () => {
    const directory = scratch();
    const secret = join(directory, 'secret.txt');
    writeFileSync(secret, 'not for the model');
    const spill = new ResultSpill({ directory });
    const kept = spill.write('run_link', 'the output');
    if (!('id' in kept)) throw new Error(kept.error);
    unlinkSync(kept.path);
    symlinkSync(secret, kept.path);
    expect(spill.read('run_link', 0, 100)).toBeUndefined();
    spill.dispose();
    expect(readFileSync(secret, 'utf8')).toBe('not for the model');
  });

  it('reads only ids it wrote, and removes its folder on dispose', () => {
    const directory = scratch();
    const other = new ResultSpill({ directory });
    other.write('run_other', 'another session');
    const spill = new ResultSpill({ directory });
    const kept = spill.write('run_mine', 'mine');
    if (!('id' in kept)) throw new Error(kept.error);
    expect(spill.read('run_other', 0, 100)).toBeUndefined();
    expect(spill.read('run_mine', 0, 100)?.text).toBe('mine');
    spill.dispose();
    spill.dispose();
    expect(existsSync(dirname(kept.path))).toBe(false);
    expect(spill.read('run_mine', 0, 100)).toBeUndefined();
    expect(other.read('run_other', 0, 100)?.text).toBe('another session');
    other.dispose();
  });

  it('pages on character boundaries, so every page is whole text and the pages add up to the file', () => {
    const spill = new ResultSpill({ directory: scratch() });
    const text = `${'🌧️ rain, '.repeat(300)}\nend`;
    spill.write('run_emoji', text);
    const pages: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page: OutputPage = spill.read('run_emoji', offset, 101)!;
      expect(page.text).not.toContain('\uFFFD');
      pages.push(page.text);
      offset = page.nextOffset;
    }
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.join('')).toBe(text);
    // An offset inside a character starts at the next one.
    expect(spill.read('run_emoji', 1, 8)!.text.startsWith('\uFE0F')).toBe(true);
  });
});

describe('read_output', () => {
  it('serves pages with the call for the next one, and says when an id is not kept', () => {
    const spill = new ResultSpill({ directory: scratch(), retentionMs: 90_000 });
    spill.write('run_log', 'a'.repeat(1_500));
    const tool = createReadOutputTool(spill, 1_000);
    const first = tool.read({ id: 'run_log' });
    expect(first.isError).toBe(false);
    expect(first.text).toContain('[read_output] run_log · bytes 0–1000 of 1500\n');
    expect(first.text).toContain('[read_output] more: call read_output with {"id": "run_log", "offset": 1000}.');
    const second = tool.read({ id: 'run_log', offset: 1000 });
    expect(second.text).toContain('bytes 1000–1500 of 1500');
    expect(second.text).toContain('[read_output] end of output.');
    const missing = tool.read({ id: 'run_nope' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('outputs are kept for 90 seconds after their run');
    expect(tool.read({ id: 'run_log', offset: -1 }).isError).toBe(true);
    expect(tool.read({ id: 'run_log', path: '/etc/passwd' }).isError).toBe(true);
    spill.dispose();
  });
});
