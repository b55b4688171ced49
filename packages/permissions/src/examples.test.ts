import { afterEach, describe, expect, it, vi } from 'vitest';

// Each example starts its own real substrate (a worker process, a Python zygote) and runs one program:
// seconds on a loaded machine, past vitest's 5 s default, and nothing a test could start for it.
const exampleTimeoutMs = 30_000;

describe('README examples', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it(
    'runs the policy in code through the worker-thread provider and shows the denial',
    async () => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      await import('../examples/policy-in-code.js');
      expect(log).toHaveBeenCalledTimes(1);
      expect(log.mock.calls[0]![0]).toBe(
        'Permission denied: fs.read_text is not allowed: no policy rule allows it (rule 0: argument "path": ' +
          '"/srv/data/../../etc/passwd" (it resolves to /etc/passwd) is not within /srv/data). ' +
          'Tools available to this program: fs.read_text.',
      );
    },
    exampleTimeoutMs,
  );

  it(
    'runs the JSON policy through the Python provider with approval and an audit log',
    async () => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      await import('../examples/policy-from-json.js');
      expect(log.mock.calls).toEqual([
        [
          42,
          [
            'Permission denied: github.create_issue was not approved: prefix bot-filed titles with [bot]. ' +
              'Tools available to this program: github.create_issue.',
          ],
        ],
        [['github.create_issue: deny', 'github.create_issue: allow']],
      ]);
    },
    exampleTimeoutMs,
  );
});
