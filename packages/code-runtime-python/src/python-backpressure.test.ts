import { describe, expect, it } from 'vitest';
import { createPythonCodeRuntime } from './index.js';

describe('python: replies to a large fan-out', () => {
  it('waits for the child to drain with one listener, however many replies find the pipe full', {
    timeout: 60_000,
  }, async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const runtime = createPythonCodeRuntime({ hostCalls: 5_000, concurrentHostCalls: 5_000, wallTimeMs: 50_000 });
    try {
      const result = await runtime.run({
        program:
          'import asyncio\nreplies = await asyncio.gather(*[tools.echo(text="y" * 2000) for _ in range(3000)])\nreturn len(replies)',
        bindings: { tools: { echo: async (input) => input } },
      });
      expect(result).toMatchObject({ ok: true, value: 3000 });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await runtime.dispose();
    }
  });
});
