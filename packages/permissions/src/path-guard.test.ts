import { describe, expect, it } from 'vitest';
import { createPathGuard, pathGuardProblem } from './path-guard.js';

const data = createPathGuard({ roots: ['/srv/data'] });

describe('createPathGuard', () => {
  it('accepts paths inside the root, however they are spelt', () => {
    for (const path of [
      '/srv/data',
      '/srv/data/',
      '/srv/data/report.txt',
      '/srv/data//nested///deep/',
      '/srv/data/./a/./b',
      '/srv/data/a/../b',
      '//srv/data/x',
      '/srv/./data/x',
      '/srv/data/100%.txt',
      '/srv/data/caf%C3%A9.txt',
      '/srv/data/name.with.dots',
    ]) {
      expect({ path, problem: data.problem(path) }).toEqual({ path, problem: undefined });
    }
  });

  it('refuses a sibling whose name starts with the root name', () => {
    expect(data.problem('/srv/data-evil')).toMatch(/is not within \/srv\/data/);
    expect(data.problem('/srv/data-evil/secret')).toMatch(/is not within/);
    expect(data.problem('/srv/database')).toMatch(/is not within/);
    expect(data.problem('/srv/dat')).toMatch(/is not within/);
  });

  it('resolves .. before comparing, so traversal out of the root fails', () => {
    expect(data.problem('/srv/data/../etc')).toBe(
      '"/srv/data/../etc" (it resolves to /srv/etc) is not within /srv/data',
    );
    expect(data.problem('/srv/data/a/../../etc/passwd')).toMatch(/resolves to \/srv\/etc\/passwd/);
    expect(data.problem('/srv/data/..')).toMatch(/resolves to \/srv\)/);
    expect(data.problem('/srv/data/../data-evil/x')).toMatch(/is not within/);
    expect(data.problem('/../../srv/data/../../etc')).toMatch(/resolves to \/etc/);
  });

  it('refuses relative paths when no base is given', () => {
    for (const path of ['data/x', './x', '../srv/data/x', 'srv/data']) {
      expect(data.problem(path)).toMatch(/is a relative path; give an absolute path within \/srv\/data/);
    }
  });

  it('refuses what is not a usable path string', () => {
    expect(data.problem('')).toBe('must be a path, got an empty string');
    expect(data.problem(42)).toBe('must be a path string, got number');
    expect(data.problem(null)).toBe('must be a path string, got null');
    expect(data.problem({ path: '/srv/data' })).toBe('must be a path string, got an object');
  });

  it('refuses NUL bytes, raw or percent-encoded', () => {
    expect(data.problem('/srv/data/file.txt\0.png')).toMatch(/contains a NUL byte/);
    expect(data.problem('/srv/data/file.txt%00.png')).toMatch(/contains a NUL byte/);
  });

  it('decodes percent-encoding before comparing, so encoded traversal fails', () => {
    expect(data.problem('/srv/data/%2e%2e/etc/passwd')).toMatch(/resolves to \/srv\/etc\/passwd/);
    expect(data.problem('/srv/data/%2E%2E%2F%2E%2E%2Fetc')).toMatch(/resolves to \/etc/);
    expect(data.problem('/srv/data/x%2f..%2f..%2fetc')).toMatch(/resolves to \/srv\/etc/);
  });

  it('decodes repeatedly, so double-encoded traversal fails', () => {
    expect(data.problem('/srv/data/%252e%252e/%252e%252e/etc')).toMatch(/resolves to \/etc/);
    expect(data.problem('/srv/data/%25252e%25252e/x')).toMatch(/resolves to \/srv\/x/);
  });

  it('refuses a path still encoded after several rounds of decoding', () => {
    expect(data.problem('/srv/data/%2525252525252e')).toMatch(/percent-encoded too many times/);
  });

  it('refuses percent-encoded bytes that are not UTF-8, such as overlong dots', () => {
    expect(data.problem('/srv/data/%c0%ae%c0%ae/etc')).toMatch(/not valid UTF-8/);
  });

  it('treats backslashes as separators too, so Windows-style traversal fails on POSIX roots', () => {
    expect(data.problem('/srv/data/x\\..\\..\\etc')).toMatch(/resolves to \/srv\/etc/);
    expect(data.problem('/srv/data/x%5c..%5c..%5cetc')).toMatch(/resolves to \/srv\/etc/);
    expect(data.problem('/srv/other\\..\\data/x')).toMatch(/is not within/);
  });

  it('refuses segments made only of dots and spaces, which Windows reads as . or ..', () => {
    expect(data.problem('/srv/data/.../etc')).toMatch(/only of dots and spaces/);
    expect(data.problem('/srv/data/.. /etc')).toMatch(/only of dots and spaces/);
    expect(data.problem('/srv/data/x/. /y')).toMatch(/only of dots and spaces/);
  });

  it('accepts everything absolute under the root /', () => {
    const anywhere = createPathGuard({ roots: ['/'] });
    expect(anywhere.problem('/etc/passwd')).toBeUndefined();
    expect(anywhere.problem('etc/passwd')).toMatch(/relative/);
  });

  it('accepts a path within any of several roots', () => {
    const two = createPathGuard({ roots: ['/srv/data', '/tmp/work/'] });
    expect(two.problem('/tmp/work/a')).toBeUndefined();
    expect(two.problem('/srv/data/b')).toBeUndefined();
    expect(two.problem('/tmp/other')).toBe('"/tmp/other" is not within /srv/data, /tmp/work/');
  });
});

describe('createPathGuard with relativeTo', () => {
  const based = createPathGuard({ roots: ['/srv/data'], relativeTo: '/srv/data/work' });

  it('resolves relative paths against the base', () => {
    expect(based.problem('notes.txt')).toBeUndefined();
    expect(based.problem('./a/b')).toBeUndefined();
    expect(based.problem('../shared/x')).toBeUndefined();
    expect(based.problem('/srv/data/abs')).toBeUndefined();
  });

  it('still refuses relative paths that climb out of the roots', () => {
    expect(based.problem('../../etc')).toMatch(/resolves to \/srv\/etc/);
    expect(based.problem('a/../../../../etc/passwd')).toMatch(/resolves to \/etc\/passwd/);
    expect(based.problem('..%2f..%2f..%2fetc')).toMatch(/resolves to \/etc/);
  });

  it('refuses a relative path starting with ~', () => {
    expect(based.problem('~/secrets')).toMatch(/starts with ~/);
  });
});

describe('createPathGuard with Windows roots', () => {
  const windows = createPathGuard({ roots: ['C:\\data'] });

  it('accepts paths inside the root with either separator and any drive-letter case', () => {
    expect(windows.problem('C:\\data\\report.txt')).toBeUndefined();
    expect(windows.problem('c:/data/a/b')).toBeUndefined();
    expect(windows.problem('C:\\data\\x\\..\\y')).toBeUndefined();
  });

  it('refuses traversal, prefix tricks and other drives', () => {
    expect(windows.problem('C:\\data\\..\\Windows\\system32')).toMatch(/resolves to C:\/Windows\/system32/);
    expect(windows.problem('C:\\data-evil\\x')).toMatch(/is not within/);
    expect(windows.problem('D:\\data\\x')).toMatch(/is not within/);
    expect(windows.problem('C:\\data\\x%5c..%5c..%5cWindows')).toMatch(/resolves to C:\/Windows/);
  });

  it('refuses UNC, device, rooted and drive-relative paths', () => {
    expect(windows.problem('\\\\server\\share\\data')).toMatch(/names no drive/);
    expect(windows.problem('\\\\?\\C:\\data\\x')).toMatch(/names no drive/);
    expect(windows.problem('\\data\\x')).toMatch(/names no drive/);
    expect(windows.problem('C:data\\x')).toMatch(/drive's current directory/);
  });

  it('never reads a UNC path as relative to a base', () => {
    const based = createPathGuard({ roots: ['C:\\data'], relativeTo: 'C:\\data' });
    expect(based.problem('x\\y')).toBeUndefined();
    expect(based.problem('\\\\?\\D:\\secret')).toMatch(/names no drive/);
  });
});

describe('pathGuardProblem', () => {
  it('checks one path against roots without building a guard first', () => {
    expect(pathGuardProblem('/srv/data/a', { roots: ['/srv/data'] })).toBeUndefined();
    expect(pathGuardProblem('/srv/data-evil', { roots: ['/srv/data'] })).toMatch(/is not within/);
  });

  it('throws for roots that are relative, mixed in style, or contain NUL', () => {
    expect(() => createPathGuard({ roots: ['srv/data'] })).toThrow(/is not absolute/);
    expect(() => createPathGuard({ roots: ['/srv', 'C:\\data'] })).toThrow(/mixes POSIX and Windows/);
    expect(() => createPathGuard({ roots: ['/srv/\0'] })).toThrow(/NUL/);
    expect(() => createPathGuard({ roots: [] })).toThrow(/at least one root/);
    expect(() => createPathGuard({ roots: ['/srv'], relativeTo: 'work' })).toThrow(/is not absolute/);
  });
});

describe('path guard messages', () => {
  it('cut a huge program-supplied path short', () => {
    const problem = data.problem(`/etc/${'a'.repeat(100_000)}`)!;
    expect(problem.length).toBeLessThan(600);
    expect(problem).toMatch(/…" is not within \/srv\/data$/);
  });
});
