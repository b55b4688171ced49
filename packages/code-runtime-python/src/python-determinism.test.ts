import { execFileSync } from 'node:child_process';
import type { HostFunction } from '@sluice/code-runtime';
import { afterAll, describe, expect, it } from 'vitest';
import { testRuntime } from './__fixtures__/test-runtime.js';

const runtime = testRuntime({ wallTimeMs: 20_000 });
afterAll(() => runtime.dispose());

const startTime = 1_700_000_000_000;
const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];

// Repeatability, the wall clock (time.time, time_ns), random.random, answers in call order and
// ordinary runs between deterministic ones are the shared conformance suite's determinism cases
// (conformance.test.ts). What is Python's own is below: its other clocks and sources of randomness,
// and the order of a set of strings.
const program = `
import datetime, os, random, secrets, time, uuid
print('start', datetime.datetime.now().isoformat(), datetime.date.today().isoformat(), time.monotonic(), time.perf_counter())
drawn = [random.Random().random(), random.SystemRandom().random(), random.randint(1, 10 ** 9)]
tokens = [str(uuid.uuid4()), os.urandom(4).hex(), secrets.token_hex(4)]
words = list(set(${JSON.stringify(words)}))
await tools.echo({'key': 'a'})
time.sleep(0.5)
return {'drawn': drawn, 'tokens': tokens, 'words': words, 'utc': datetime.datetime.utcnow().isoformat(),
        'monotonic': time.monotonic()}
`;

interface PythonOnly {
  readonly value: { drawn: unknown[]; tokens: unknown[]; words: string[]; utc: string; monotonic: number };
  readonly logs: Array<{ level: string; text: string }>;
}

/** Runs `program` deterministically with `seed`: its value and logs, as one string. */
async function runWith(seed: number): Promise<string> {
  const echo: HostFunction = (input) => input;
  const result = await runtime.run({ program, bindings: { tools: { echo } }, deterministic: { seed, startTime } });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return JSON.stringify({ value: result.ok ? result.value : result.failure, logs: result.logs });
}

describe('python deterministic runs (request.deterministic)', () => {
  it('repeats its other clocks and sources of randomness for the same seed, and draws others from another', async () => {
    const seven = await runWith(7);
    expect(await runWith(7)).toBe(seven);
    const parsed = JSON.parse(seven) as PythonOnly;
    // One answer (1 ms) and a sleep of 0.5 s, which returns at once and moves the clock.
    expect(parsed.value).toMatchObject({ utc: '2023-11-14T22:13:20.501000', monotonic: 0.501 });
    expect(parsed.logs.map((line) => line.text)).toEqual([
      expect.stringMatching(/^start 2023-11-\d\dT\d\d:13:20 2023-11-\d\d 0\.0 0\.0$/),
    ]);
    const { drawn, tokens } = parsed.value;
    expect(new Set(drawn).size).toBe(drawn.length);
    expect(new Set(tokens).size).toBe(tokens.length);
    const eight = (JSON.parse(await runWith(8)) as PythonOnly).value;
    for (const [index, value] of drawn.entries()) expect(eight.drawn[index]).not.toEqual(value);
    for (const [index, value] of tokens.entries()) expect(eight.tokens[index]).not.toEqual(value);
  }, 60_000);

  it('orders a set of strings as every host does, by the fixed hash seed', async () => {
    const parsed = JSON.parse(await runWith(7)) as PythonOnly;
    const elsewhere = execFileSync('python3', ['-c', `print(','.join(set(${JSON.stringify(words)})))`], {
      encoding: 'utf8',
      env: { PYTHONHASHSEED: '0' },
    }).trim();
    expect(parsed.value.words.join(',')).toBe(elsewhere);
  }, 60_000);

  it('gives a plain run after a deterministic one the real clock functions and datetime types', async () => {
    await runWith(11);
    const plain = await runtime.run({
      program: `
import datetime, os, time
kinds = [type(f).__name__ for f in (time.time, time.monotonic, os.urandom)]
return {'today': datetime.datetime.now().year, 'kinds': kinds, 'real': type(datetime.datetime) is type}`,
    });
    expect(plain).toMatchObject({
      ok: true,
      value: {
        today: new Date().getFullYear(),
        real: true,
        kinds: ['builtin_function_or_method', 'builtin_function_or_method', 'builtin_function_or_method'],
      },
    });
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
  it('names CPython and hashes the files, the same outside the test runner', () => {
    const { fingerprint } = runtime.determinism;
    expect(fingerprint).toMatch(/^cpython-3\.\d+\.\d+[a-z0-9+]*:[0-9a-f]{32}$/);
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
});
