import { execFileSync } from 'node:child_process';
import type { CodeRunDeterminism, HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { testRuntime } from './__fixtures__/test-runtime.js';
import { createPythonCodeRuntime } from './index.js';

const runtime = testRuntime({ wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

const startTime = 1_700_000_000_000;
const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];

// The clock, every source of randomness, a set of strings, a timer set before the calls (which must
// wait for them), and a gather over host calls whose coroutines continue after their reply.
const program = `
import datetime, os, random, secrets, time, uuid
loop = asyncio.get_running_loop()
loop.call_later(0, lambda: print('zero timer', loop.time()))
started = time.time()
print('start', datetime.datetime.now().isoformat(), datetime.date.today().isoformat(), time.monotonic(), time.perf_counter())
drawn = [random.random(), random.Random().random(), random.SystemRandom().random(), random.randint(1, 10 ** 9)]
tokens = [str(uuid.uuid4()), os.urandom(4).hex(), secrets.token_hex(4)]
words = list(set(${JSON.stringify(words)}))

async def one(key):
    reply = await tools.echo({'key': key})
    print('reply', key, time.time_ns())
    await asyncio.sleep(0)
    print('then', key, time.monotonic())
    return reply

replies = await asyncio.gather(*(one(key) for key in ['a', 'b', 'c']))
loop.call_later(0.03, lambda: print('timer 30', round((time.time() - started) * 1000)))
loop.call_later(0.01, lambda: print('timer 10', round((time.time() - started) * 1000)))
await asyncio.sleep(0.1)
late = await tools.echo({'key': 'late', 'at': time.time()})
return {'started': started, 'drawn': drawn, 'tokens': tokens, 'words': words, 'replies': replies, 'late': late,
        'end': time.time_ns() // 1000000, 'utc': datetime.datetime.utcnow().isoformat(), 'again': random.random()}
`;

/**
 * Runs `program` deterministically with an echo tool whose n-th call finishes after `delaysMs[n]` of
 * real time, so the host's results come back in whatever order the delays give. Returns the calls the
 * host saw, the run's records of them, its logs and its value, as one string.
 */
async function runWith(deterministic: CodeRunDeterminism, delaysMs: readonly number[]): Promise<string> {
  const seen: unknown[] = [];
  const echo: HostFunction = async (input) => {
    const delayMs = delaysMs[seen.length] ?? 0;
    seen.push(input);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return input;
  };
  const result = await runtime.run({ program, bindings: { tools: { echo } }, deterministic });
  return JSON.stringify({
    ok: result.ok,
    value: result.ok ? result.value : result.failure,
    logs: result.logs,
    seen,
    calls: result.calls.map(({ namespace, name, ok, error }) => ({ namespace, name, ok, error })),
  });
}

describe('python deterministic runs (request.deterministic)', () => {
  it("repeats calls, logs and value byte for byte, however the host's calls finish", async () => {
    const reversed = await runWith({ seed: 7, startTime }, [90, 45, 1]);
    const inOrder = await runWith({ seed: 7, startTime }, [1, 45, 90]);
    const mixed = await runWith({ seed: 7, startTime }, [45, 1, 90]);
    expect(inOrder).toBe(reversed);
    expect(mixed).toBe(reversed);

    const parsed = JSON.parse(reversed) as {
      ok: boolean;
      value: Record<string, unknown>;
      logs: Array<{ level: string; text: string }>;
      seen: unknown[];
    };
    expect(parsed.ok).toBe(true);
    // Three results (1 ms each), then timers only when nothing else can run: the clock jumps to each
    // due time (10, 30 and the 100 ms sleep), then one more result.
    expect(parsed.value).toMatchObject({
      started: startTime / 1000,
      late: { key: 'late', at: (startTime + 103) / 1000 },
      end: startTime + 104,
      utc: '2023-11-14T22:13:20.104000',
    });
    expect(parsed.seen).toEqual([
      { key: 'a' },
      { key: 'b' },
      { key: 'c' },
      { key: 'late', at: (startTime + 103) / 1000 },
    ]);
    const texts = parsed.logs.map((line) => line.text);
    expect(texts[0]).toMatch(/^start 2023-11-\d\dT\d\d:13:20 2023-11-\d\d 0\.0 0\.0$/);
    // Each result's coroutine runs to its end before the next result is delivered.
    expect(texts.slice(1, 7)).toEqual([
      `reply a ${startTime + 1}000000`,
      'then a 0.001',
      `reply b ${startTime + 2}000000`,
      'then b 0.002',
      `reply c ${startTime + 3}000000`,
      'then c 0.003',
    ]);
    expect(texts.slice(7)).toEqual(['zero timer 0.003', 'timer 10 13', 'timer 30 33']);
  }, 60_000);

  it('orders a set of strings as every host does, by the fixed hash seed', async () => {
    const parsed = JSON.parse(await runWith({ seed: 7, startTime }, [1, 1, 1, 1])) as { value: { words: string[] } };
    const elsewhere = execFileSync('python3', ['-c', `print(','.join(set(${JSON.stringify(words)})))`], {
      encoding: 'utf8',
      env: { PYTHONHASHSEED: '0' },
    }).trim();
    expect(parsed.value.words.join(',')).toBe(elsewhere);
  }, 60_000);

  it('draws other numbers from another seed, on the same clock', async () => {
    const seven = JSON.parse(await runWith({ seed: 7, startTime }, [1, 1, 1, 1])) as { value: Record<string, unknown> };
    const eight = JSON.parse(await runWith({ seed: 8, startTime }, [1, 1, 1, 1])) as { value: Record<string, unknown> };
    for (const key of ['drawn', 'tokens', 'again']) expect(eight.value[key]).not.toEqual(seven.value[key]);
    const [drawn, tokens] = [seven.value.drawn as unknown[], seven.value.tokens as unknown[]];
    expect(new Set(drawn).size).toBe(drawn.length);
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(eight.value.end).toBe(seven.value.end);
  }, 60_000);

  it('leaves a plain run between deterministic ones as it was', async () => {
    const first = await runWith({ seed: 11, startTime: 5_000 }, [20, 1, 1, 1]);
    const plainProgram = `
import datetime, os, random, time
kinds = [type(f).__name__ for f in (time.time, time.monotonic, os.urandom)]
return {'now': time.time() * 1000, 'today': datetime.datetime.now().year, 'kinds': kinds,
        'real': type(datetime.datetime) is type, 'random': random.random()}`;
    const before = Date.now();
    const plain = await runtime.run({ program: plainProgram });
    const again = await runtime.run({ program: plainProgram });
    const after = Date.now();
    expect(plain.ok && again.ok).toBe(true);
    const value = (plain.ok ? plain.value : {}) as { now: number; today: number; kinds: string[]; random: number };
    expect(value.now).toBeGreaterThanOrEqual(before - 1);
    expect(value.now).toBeLessThanOrEqual(after + 1);
    expect(value).toMatchObject({ today: new Date().getFullYear(), real: true });
    expect(value.kinds).toEqual([
      'builtin_function_or_method',
      'builtin_function_or_method',
      'builtin_function_or_method',
    ]);
    expect((again.ok ? again.value : {}) as { random: number }).not.toMatchObject({ random: value.random });
    expect(await runWith({ seed: 11, startTime: 5_000 }, [1, 1, 20, 1])).toBe(first);
  }, 60_000);

  it('keeps datetime types as programs know them', async () => {
    const result = await runtime.run({
      program: `
import datetime, pickle, time
now = datetime.datetime.now(datetime.timezone.utc)
before = time.monotonic()
time.sleep(2.5)
return [repr(now), isinstance(now, datetime.date), isinstance(datetime.date.today(), datetime.date),
        issubclass(datetime.datetime, datetime.date), pickle.loads(pickle.dumps(now)) == now,
        str(now + datetime.timedelta(days=1)), time.monotonic() - before]
`,
      deterministic: { seed: 1, startTime },
    });
    expect(result).toMatchObject({
      ok: true,
      value: [
        'datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=datetime.timezone.utc)',
        true,
        true,
        true,
        true,
        '2023-11-15 22:13:20+00:00',
        2.5,
      ],
    });
  }, 60_000);
});

describe('python determinism fingerprint', () => {
  it('names CPython and hashes the files, the same in every runtime and outside the test runner', () => {
    const { fingerprint } = runtime.determinism;
    expect(fingerprint).toMatch(/^cpython-3\.\d+\.\d+[a-z0-9+]*:[0-9a-f]{32}$/);
    expect(createPythonCodeRuntime().determinism.fingerprint).toBe(fingerprint);
    const index = new URL('../dist/index.js', import.meta.url).href;
    const outside = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createPythonCodeRuntime } = await import(${JSON.stringify(index)}); process.stdout.write(createPythonCodeRuntime().determinism.fingerprint);`,
      ],
      { encoding: 'utf8' },
    );
    expect(outside).toBe(fingerprint);
  });

  it('refuses a malformed determinism before anything runs', () => {
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: 2 ** 32, startTime } })).toThrow(
      /seed must be an integer in \[0, 2\^32\)/,
    );
    expect(() => runtime.start({ program: 'return 1', deterministic: { seed: 1, startTime: -1 } })).toThrow(
      /startTime must be milliseconds since the Unix epoch/,
    );
  });
});
