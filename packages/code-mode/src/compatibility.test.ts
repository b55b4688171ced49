import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { peerTools, resetPeerTools } from './__fixtures__/compatibility/peer-tools.js';
import {
  llamaIndexPrograms,
  pythonPeerStyles,
  vercelPythonPrograms,
} from './__fixtures__/compatibility/python-peer-styles.js';
import { pythonPrograms } from './__fixtures__/compatibility/python-programs.js';
import { pythonWorkflows } from './__fixtures__/compatibility/python-workflows.js';
import {
  type CompatibilityCase,
  CompatibilityTally,
  compatibilityTool,
  judge,
  peerStyleFamilies,
  styleFamily,
} from './__fixtures__/compatibility/suite.js';
import {
  anthropicPrograms,
  cloudflarePrograms,
  vercelPrograms,
} from './__fixtures__/compatibility/typescript-peers.js';
import { typescriptPrograms } from './__fixtures__/compatibility/typescript-programs.js';
import { typescriptWorkflows } from './__fixtures__/compatibility/typescript-workflows.js';

// Programs in the shapes models write, and in the original forms of the public code-mode peers
// (Cloudflare code mode, Anthropic's MCP code execution and programmatic tool calling, smolagents,
// Monty, LlamaIndex CodeAct, Vercel's AI SDK), run through run_code on every provider (TypeScript on
// worker-thread and QuickJS, Python on CPython); the tally after the run says how many of each
// peer's programs run unchanged on each provider. Each returns the value it states or fails with a
// message naming the fix; a case marked `gap` (for every provider, or in a suite's `gaps` for one)
// does neither yet and is expected to fail here, so fixing it turns this run red until it is unmarked.

interface Suite {
  readonly name: string;
  /** The provider, as the per-style tally names it. */
  readonly provider: 'worker-thread' | 'QuickJS' | 'CPython';
  readonly runtime: CodeRuntime;
  readonly cases: readonly CompatibilityCase[];
  /** Cases that are gaps on this provider only (by style), with what it does instead. */
  readonly gaps?: Readonly<Record<string, string>>;
  /** The tools the programs call, when not the suite's own (./tools.ts), and what puts their state back before each. */
  readonly tools?: { readonly list: readonly Tool[]; readonly reset: () => void };
}

// The peers' TypeScript programs call the peers' own tools (./peer-tools.ts), on both TypeScript providers.
const peers = { list: peerTools, reset: resetPeerTools };
const typescriptPeerPrograms = [...cloudflarePrograms, ...anthropicPrograms, ...vercelPrograms];
const pythonPeerPrograms = [...pythonPeerStyles, ...llamaIndexPrograms, ...vercelPythonPrograms];

const suites: Suite[] = [
  {
    name: 'TypeScript on @sluice/code-runtime-worker-thread',
    provider: 'worker-thread',
    runtime: createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...typescriptPrograms, ...typescriptWorkflows],
  },
  {
    name: 'TypeScript on @sluice/code-runtime-quickjs',
    provider: 'QuickJS',
    runtime: createQuickJsCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...typescriptPrograms, ...typescriptWorkflows],
  },
  {
    name: 'Cloudflare, Anthropic MCP and Vercel AI SDK styles on @sluice/code-runtime-worker-thread',
    provider: 'worker-thread',
    runtime: createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
    cases: typescriptPeerPrograms,
    tools: peers,
  },
  {
    name: 'Cloudflare, Anthropic MCP and Vercel AI SDK styles on @sluice/code-runtime-quickjs',
    provider: 'QuickJS',
    runtime: createQuickJsCodeRuntime({ wallTimeMs: 20_000 }),
    cases: typescriptPeerPrograms,
    tools: peers,
  },
  {
    name: 'Python on @sluice/code-runtime-python',
    provider: 'CPython',
    runtime: createPythonCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...pythonPrograms, ...pythonWorkflows],
  },
  {
    name: 'Anthropic PTC, smolagents, Monty, LlamaIndex CodeAct and Vercel AI SDK styles on @sluice/code-runtime-python',
    provider: 'CPython',
    runtime: createPythonCodeRuntime({ wallTimeMs: 20_000 }),
    cases: pythonPeerPrograms,
  },
];

// The first run of each provider starts its process (and the TypeScript parser); on a loaded machine that takes seconds.
const startup = 30_000;

const tally = new CompatibilityTally();
afterAll(async () => {
  console.log(`compatibility suite\n${tally.report()}`);
  await Promise.all(suites.map(({ runtime }) => runtime.dispose()));
});

describe('the compatibility suite', () => {
  it('has at least 40 programs, each stating its value or the fix its failure names', () => {
    const cases = suites.flatMap((suite) => suite.cases);
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const testCase of cases) {
      if ('fails' in testCase.expect) expect(testCase.note ?? testCase.gap, testCase.style).toBeTruthy();
    }
  });

  it("has at least 60 programs in the peers' styles, every peer among them, each asserting its answer, logs and calls", () => {
    const peerCases = [...typescriptPeerPrograms, ...pythonPeerPrograms];
    expect(peerCases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(peerCases.map((testCase) => testCase.style)).size).toBe(peerCases.length);
    expect(new Set(peerCases.map(styleFamily))).toEqual(new Set(peerStyleFamilies));
    for (const testCase of peerCases) {
      expect(testCase.calls, testCase.style).toBeDefined();
      // A program whose answer is what it prints states its log lines as that answer.
      expect(testCase.logs !== undefined || 'printed' in testCase.expect, testCase.style).toBe(true);
    }
  });
});

for (const { name, provider, runtime, cases, gaps, tools } of suites) {
  describe(name, () => {
    const tool = compatibilityTool(runtime, tools?.list);
    for (const testCase of cases) {
      const expected = 'fails' in testCase.expect ? 'named-fix' : 'value';
      const test = (testCase.gap ?? gaps?.[testCase.style]) === undefined ? it : it.fails;
      test(
        `${expected === 'value' ? 'returns its value' : 'fails naming the fix'}: ${testCase.style}`,
        async () => {
          tools?.reset();
          const outcome = await judge(tool, testCase);
          tally.record(name, provider, testCase, outcome);
          expect(outcome.verdict, outcome.detail).toBe(expected);
        },
        startup,
      );
    }
  });
}
