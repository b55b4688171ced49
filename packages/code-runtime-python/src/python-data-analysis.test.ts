import { readFileSync } from 'node:fs';
import { InvalidSettingsError } from '@sluice/code-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDataPython } from './__fixtures__/data-python.js';
import { failureOf, python, successValue, testRuntime, zygotePids } from './__fixtures__/test-runtime.js';
import type { PythonCodeRuntime } from './python-code-runtime.js';
import { resolvePythonSettings } from './python-settings.js';

const found = findDataPython();
if ('skip' in found) console.warn(`python data-analysis tests skipped: ${found.skip}`);
const executable = 'executable' in found ? found.executable : 'python3';
const preloadModules = ['numpy', 'pandas', 'matplotlib.pyplot'];
// A loaded 2-core machine: the zygote imports the three modules (seconds) before its first child.
const slow = { timeout: 180_000 };
const budgets = { pythonExecutable: executable, wallTimeMs: 60_000, acquireTimeoutMs: 150_000 };

const sales = [
  { region: 'north', month: '2026-01', amount: 120.5 },
  { region: 'south', month: '2026-01', amount: 80 },
  { region: 'north', month: '2026-02', amount: 99.5 },
  { region: 'south', month: '2026-02', amount: 20 },
  { region: 'west', month: '2026-02', amount: 7 },
];

/** Width and height from a PNG's IHDR chunk, after checking its signature and chunk order. */
function pngSize(base64: string): { width: number; height: number; bytes: number } {
  const png = Buffer.from(base64, 'base64');
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  expect(png.subarray(png.length - 8, png.length - 4).toString('ascii')).toBe('IEND');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
}

/**
 * The most threads any child of `subject`'s zygote has while one of them, having multiplied two matrices
 * (which starts OpenBLAS's pool), waits in a host call: read from the host, since /proc is closed to the child.
 */
async function childThreadsAfterProduct(subject: PythonCodeRuntime): Promise<number> {
  const threads = () => {
    const counts = zygotePids().flatMap((zygote) =>
      readFileSync(`/proc/${zygote}/task/${zygote}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter((pid) => pid !== '')
        .map((pid) => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)),
    );
    return Math.max(0, ...counts);
  };
  const program = 'import numpy as np\na = np.ones((300, 300))\na @ a\nreturn await tools.threads()';
  return successValue(await subject.run({ program, bindings: { tools: { threads } } })) as number;
}

describe('python data analysis settings', () => {
  it('turns site-packages on with preloadModules, and refuses them with allowSitePackages false or a bad name', () => {
    expect(resolvePythonSettings({ preloadModules: ['numpy'] }, {})).toMatchObject({
      allowSitePackages: true,
      preloadModules: ['numpy'],
      numericThreads: 1,
      figureLimit: 8,
      figureBytes: 512 * 1024,
    });
    expect(resolvePythonSettings({}, {}).allowSitePackages).toBe(false);
    for (const settings of [
      { preloadModules: ['numpy'], allowSitePackages: false },
      { preloadModules: ['numpy; import os'] },
      { preloadModules: 'numpy' },
      { readPaths: ['relative/path'] },
      { figureBytes: 2 * 1024 * 1024 },
    ]) {
      expect(() => resolvePythonSettings(settings, {}), JSON.stringify(settings)).toThrow(InvalidSettingsError);
    }
  });
});

describe.skipIf('skip' in found)('python data analysis on a real interpreter (numpy, pandas, matplotlib)', () => {
  let runtime: PythonCodeRuntime;
  beforeAll(() => {
    runtime = testRuntime({ ...budgets, preloadModules });
  });
  afterAll(async () => {
    await runtime.dispose();
  });

  it('groups tool results with pandas, the modules already imported in the zygote', slow, async () => {
    const program = python(
      'import sys',
      'preloaded = all(name in sys.modules for name in ("numpy", "pandas", "matplotlib.pyplot"))',
      'import pandas as pd',
      'frame = pd.DataFrame(await tools.sales())',
      'totals = frame.groupby("region")["amount"].sum().sort_index()',
      'return {"preloaded": preloaded, "totals": {region: float(total) for region, total in totals.items()}}',
    );
    const value = successValue(await runtime.run({ program, bindings: { tools: { sales: () => sales } } }));
    expect(value).toEqual({ preloaded: true, totals: { north: 220, south: 100, west: 7 } });
  });

  it('gives each run one numeric thread: a child that has just multiplied matrices has one thread', slow, async () => {
    expect(await childThreadsAfterProduct(runtime)).toBe(1);
  });

  it('sends a figure shown, and one left open, as PNG images of the figure size, with their titles', slow, async () => {
    const program = python(
      'import matplotlib.pyplot as plt',
      'import pandas as pd',
      'frame = pd.DataFrame(await tools.sales())',
      'figure, axes = plt.subplots(figsize=(4, 3), dpi=100)',
      'frame.groupby("region")["amount"].sum().plot.bar(ax=axes)',
      'axes.set_title("Sales by region")',
      'plt.show()',
      'plt.close(figure)',
      'plt.figure(figsize=(2, 1.5), dpi=50)',
      'plt.plot([1, 3, 2])',
      'plt.suptitle("left open")',
      'len(frame)',
    );
    const value = successValue(await runtime.run({ program, bindings: { tools: { sales: () => sales } } })) as {
      figures: { figure: number; title: string; type: string; mimeType: string; data: string }[];
      value: number;
    };
    expect(value.value).toBe(5);
    expect(value.figures.map(({ figure, title, type, mimeType }) => ({ figure, title, type, mimeType }))).toEqual([
      { figure: 1, title: 'Sales by region', type: 'image', mimeType: 'image/png' },
      { figure: 2, title: 'left open', type: 'image', mimeType: 'image/png' },
    ]);
    expect(pngSize(value.figures[0]!.data)).toMatchObject({ width: 400, height: 300 });
    expect(pngSize(value.figures[1]!.data)).toMatchObject({ width: 100, height: 75 });
  });

  it('leaves a value alone when no figure is open, and lists figures past the limit as omitted', slow, async () => {
    expect(
      successValue(
        await runtime.run({ program: 'import matplotlib.pyplot as plt\nplt.plot([1])\nplt.close("all")\n7' }),
      ),
    ).toBe(7);
    const limited = testRuntime({ ...budgets, preloadModules, figureLimit: 1 });
    try {
      const program = python(
        'import matplotlib.pyplot as plt',
        'plt.figure(figsize=(500, 500))',
        'for n in range(3):',
        '    plt.figure(figsize=(1, 1))',
      );
      const value = successValue(await limited.run({ program })) as { figures: Record<string, unknown>[] };
      expect(value.figures.map((figure) => [figure.figure, figure.type ?? figure.omitted])).toEqual([
        [1, '50000×50000 pixels is over the 16777216 pixels a figure may have'],
        [2, 'image'],
        [3, 'over the limit of 1 figures a run'],
        [4, 'over the limit of 1 figures a run'],
      ]);
    } finally {
      await limited.dispose();
    }
  });

  it('carries numpy and pandas values across the JSON boundary by the documented rules', slow, async () => {
    const program = python(
      'import numpy as np, pandas as pd',
      'frame = pd.DataFrame({"n": [1, 2], "x": [1.5, np.nan], "t": pd.to_datetime(["2026-01-05", None])})',
      'return {',
      '    "scalars": [np.int64(3), np.float32(0.5), np.bool_(True), np.float64("inf"), np.datetime64("2026-01-05T10:30")],',
      '    "array": np.array([[1, 2], [3, 4]]),',
      '    "records": frame,',
      '    "indexed": frame.set_index("n")[["x"]],',
      '    "series": pd.Series([1.5, np.nan], index=["a", "b"]),',
      '    "plain": pd.Series([1, 2]),',
      '    "missing": [pd.NaT, pd.NA, pd.Timestamp("2026-01-05T10:30"), pd.Timedelta("90s")],',
      '    "zeros": [np.float64(-0.0), pd.Series([-0.001, -0.5]).round(2), "-0.0"],',
      '    "twice": [pd.NA, pd.NA, np.float32("nan"), np.datetime64("NaT")] * 2,',
      '    "masked": np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]),',
      '}',
    );
    expect(successValue(await runtime.run({ program }))).toEqual({
      scalars: [3, 0.5, true, null, '2026-01-05T10:30'],
      array: [
        [1, 2],
        [3, 4],
      ],
      records: [
        { n: 1, x: 1.5, t: '2026-01-05' },
        { n: 2, x: null, t: null },
      ],
      indexed: [
        { n: 1, x: 1.5 },
        { n: 2, x: null },
      ],
      series: { a: 1.5, b: null },
      plain: [1, 2],
      missing: [null, null, '2026-01-05T10:30:00', 90],
      zeros: [0, [0, -0.5], '-0.0'],
      twice: [null, null, null, null, null, null, null, null],
      masked: [1, null, 3],
    });
    const saved: unknown[] = [];
    const save = (input: unknown) => {
      saved.push(input);
      return 'saved';
    };
    const call =
      'import numpy as np, pandas as pd\nawait tools.save(frame=pd.DataFrame({"x": [np.nan, 2.0]}), total=np.float64(2.0))';
    successValue(await runtime.run({ program: call, bindings: { tools: { save } } }));
    expect(saved).toEqual([{ frame: [{ x: null }, { x: 2 }], total: 2 }]);
    const refusals = {
      'return {"z": np.array([1j])}':
        '$["z"] holds complex numbers (ndarray), which JSON cannot carry: split them into .real and .imag',
      'return [pd.DataFrame([[1, 2]], columns=["a", "a"])]':
        '$[0] is a DataFrame with repeated column names (a), which records cannot hold: rename them',
      'return pd.DataFrame({"f": [len]})': '$[0]["f"] is a builtin_function_or_method',
    };
    for (const [line, message] of Object.entries(refusals)) {
      const refused = failureOf(
        await runtime.run({ program: `import numpy as np, pandas as pd\n${line}` }),
        'invalid-output',
      );
      expect(refused.message).toContain(message);
    }
    // Checked against the budget by its size before it is copied: 10 million items cannot fit 1 MiB.
    const huge = failureOf(
      await runtime.run({ program: 'import numpy as np\nreturn np.zeros(10**7)' }),
      'output-limit',
    );
    expect(huge.message).toContain('20000001 or more bytes');
    expect(failureOf(await runtime.run({ program: 'return float("nan")' }), 'invalid-output').message).toContain('nan');
  });

  it('ends a 2 GiB numpy array as memory, touched (ones) or not (zeros)', slow, async () => {
    for (const make of ['np.ones(2**28)', 'np.zeros(2**28)']) {
      const failure = failureOf(
        await runtime.run({ program: `import numpy as np\na = ${make}\nreturn float(a[-1])` }),
        'memory',
      );
      expect(failure.message).toContain('2.00 GiB');
    }
  });

  it('refuses a read outside the allowed paths, with the modules loaded', slow, async () => {
    const program = python(
      'import numpy as np',
      'try:',
      '    np.loadtxt("/etc/passwd", dtype=str, delimiter=":")',
      '    read = "read"',
      'except PermissionError as error:',
      '    read = f"refused: {error.strerror}"',
      'return read',
    );
    const result = await runtime.run({ program });
    const layers = runtime.isolation;
    expect(layers).toContain('the packages and data of the modules it starts with (numpy, pandas, matplotlib.pyplot)');
    if (!layers.includes('Landlock')) {
      console.warn('python data analysis: Landlock is not available here; the refused read is not checked');
      return;
    }
    expect(successValue(result)).toBe('refused: Permission denied');
  });

  it(
    'draws different numpy random numbers in each run, and the same in deterministic runs of one seed',
    slow,
    async () => {
      const program = 'import numpy as np\nreturn [float(np.random.random()), float(np.random.default_rng().random())]';
      const plain = [successValue(await runtime.run({ program })), successValue(await runtime.run({ program }))];
      expect(plain[0]).not.toEqual(plain[1]);
      const seeded = async (seed: number) =>
        successValue(await runtime.run({ program, deterministic: { seed, startTime: 1_700_000_000_000 } }));
      const first = await seeded(7);
      expect(await seeded(7)).toEqual(first);
      expect(await seeded(8)).not.toEqual(first);
    },
  );

  it('reports what a run costs with the modules warm and cold (not asserted)', slow, async () => {
    const program = 'import pandas as pd\nreturn int(pd.DataFrame({"x": [1, 2, 3]})["x"].sum())';
    const cold = testRuntime({ ...budgets, allowSitePackages: true });
    try {
      const measure = async (subject: PythonCodeRuntime) => {
        const result = await subject.run({ program });
        expect(successValue(result)).toBe(6);
        return { wallMs: result.usage.wallMs, cpuMs: result.usage.cpuMs };
      };
      await measure(runtime);
      await measure(cold);
      const warmRuns = [await measure(runtime), await measure(runtime), await measure(runtime)];
      const coldRuns = [await measure(cold), await measure(cold), await measure(cold)];
      console.log(
        `python data analysis, a one-call pandas program: warm ${JSON.stringify(warmRuns)}, cold ${JSON.stringify(coldRuns)}`,
      );
    } finally {
      await cold.dispose();
    }
  });

  it('fails every run at boot, naming the module, when a preloaded module does not import', slow, async () => {
    const broken = testRuntime({ ...budgets, preloadModules: ['numpy', 'no_such_module_sluice'] });
    try {
      const failure = failureOf(await broken.run({ program: '1' }), 'substrate-exit');
      expect(failure.message).toContain('import no_such_module_sluice');
    } finally {
      await broken.dispose();
    }
    // The modules' address space leaves too little of 256 MiB for the output budgets (120 MiB here).
    const small = testRuntime({ ...budgets, preloadModules, memoryBytes: 256 * 1024 * 1024 });
    try {
      const failure = failureOf(await small.run({ program: '1' }), 'substrate-exit');
      expect(failure.message).toMatch(/With preloadModules imported the zygote has \d+ bytes of address space mapped/);
      expect(failure.message).toContain('Raise memoryBytes');
    } finally {
      await small.dispose();
    }
  });

  it('runs numpy with larger thread pools too (the zygote then forks with os.fork())', slow, async () => {
    const threaded = testRuntime({ ...budgets, preloadModules: ['numpy'], numericThreads: 2 });
    try {
      const program = 'import numpy as np\na = np.ones((300, 300))\nreturn float((a @ a).sum())';
      expect(successValue(await threaded.run({ program }))).toBe(300 ** 3);
      // OpenBLAS's own at-fork handler stops its pool before each fork (in the zygote too); each child starts it again.
      expect(successValue(await threaded.run({ program }))).toBe(300 ** 3);
      expect(await childThreadsAfterProduct(threaded)).toBe(2);
    } finally {
      await threaded.dispose();
    }
  });
});
