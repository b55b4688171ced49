import { describe, expect, it } from 'vitest';
import { python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

// Pinned: what the zygote has imported before any program runs (WARM_MODULES in sluice_zygote.py).
const warmModules = [
  'base64',
  'bisect',
  'copy',
  'csv',
  'dataclasses',
  'datetime',
  'decimal',
  'fractions',
  'functools',
  'heapq',
  'itertools',
  'math',
  'operator',
  'pprint',
  'random',
  'statistics',
  'string',
  'textwrap',
  'typing',
  'urllib.parse',
  'uuid',
];

describe('python: modules the zygote has already imported', () => {
  it('include the ones model programs use most, and nothing that loads OpenSSL', { timeout: 30_000 }, async () => {
    const runtime = testRuntime();
    try {
      const program = python(
        'import sys',
        `warm = [name for name in ${JSON.stringify(warmModules)} if name in sys.modules]`,
        'return {"warm": warm, "openssl": [name for name in ("ssl", "_ssl", "_hashlib") if sys.modules.get(name) is not None]}',
      );
      expect(successValue(await runtime.run({ program }))).toEqual({ warm: warmModules, openssl: [] });
    } finally {
      await runtime.dispose();
    }
  });

  it('are each the program’s own copy: what one run changes in them the next does not see', {
    timeout: 30_000,
  }, async () => {
    const runtime = testRuntime();
    try {
      const change = python('import datetime, statistics', 'datetime.MAXYEAR = 1', 'statistics.mean = len', 'return 1');
      expect(successValue(await runtime.run({ program: change }))).toBe(1);
      const read = python('import datetime, statistics', 'return [datetime.MAXYEAR, statistics.mean([1, 3])]');
      expect(successValue(await runtime.run({ program: read }))).toEqual([9999, 2]);
    } finally {
      await runtime.dispose();
    }
  });
});
