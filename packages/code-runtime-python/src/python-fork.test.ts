import { afterAll, describe, expect, it } from 'vitest';
import { python, successValue, testRuntime } from './__fixtures__/test-runtime.js';

const runtime = testRuntime();

afterAll(() => runtime.dispose());

describe('python: a child forked without the at-fork handlers', () => {
  it('draws its own random numbers, not the zygote’s', { timeout: 30_000 }, async () => {
    const draw = python('import random', 'return [random.random(), str(random.getrandbits(64))]');
    const draws = new Set<string>();
    for (let index = 0; index < 4; index += 1) {
      draws.add(JSON.stringify(successValue(await runtime.run({ program: draw }))));
    }
    expect(draws.size).toBe(4);
  });

  it('runs threads, with itself as the main thread', { timeout: 30_000 }, async () => {
    const program = python(
      'import threading',
      'seen = []',
      'worker = threading.Thread(target=lambda: seen.append(threading.current_thread() is threading.main_thread()))',
      'worker.start()',
      'worker.join()',
      'main = threading.main_thread()',
      'return [seen, main is threading.current_thread(), main.ident == threading.get_ident(), threading.active_count()]',
    );
    expect(successValue(await runtime.run({ program }))).toEqual([[false], true, true, 1]);
  });
});
