import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('sweeps expired spill files other processes left behind, and nothing else', () => {
    const directory = scratch();
    const old = Date.now() / 1000 - 7_200;
    for (const name of ['sluice-output-run_gone.txt', 'notes.txt', 'sluice-output-run_fresh.txt']) {
      writeFileSync(join(directory, name), name);
    }
    utimesSync(join(directory, 'sluice-output-run_gone.txt'), old, old);
    utimesSync(join(directory, 'notes.txt'), old, old);
    new ResultSpill({ directory }).write('run_new', 'new');
    expect(readdirSync(directory).sort()).toEqual([
      'notes.txt',
      'sluice-output-run_fresh.txt',
      'sluice-output-run_new.txt',
    ]);
  });

  it('reads only ids it wrote, and removes its files on dispose', () => {
    const directory = scratch();
    writeFileSync(join(directory, 'sluice-output-run_other.txt'), 'another session');
    const spill = new ResultSpill({ directory });
    const kept = spill.write('run_mine', 'mine');
    expect(spill.read('run_other', 0, 100)).toBeUndefined();
    expect(spill.read('../run_other', 0, 100)).toBeUndefined();
    expect(spill.read('run_mine', 0, 100)?.text).toBe('mine');
    spill.dispose();
    spill.dispose();
    expect(existsSync((kept as { path: string }).path)).toBe(false);
    expect(spill.read('run_mine', 0, 100)).toBeUndefined();
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
