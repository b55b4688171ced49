import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { peerTools, resetPeerTools } from './__fixtures__/compatibility/peer-tools.js';
import { pythonPeerStyles } from './__fixtures__/compatibility/python-peer-styles.js';
import { pythonPrograms } from './__fixtures__/compatibility/python-programs.js';
import { pythonWorkflows } from './__fixtures__/compatibility/python-workflows.js';
import {
  type CompatibilityCase,
  CompatibilityTally,
  compatibilityTool,
  judge,
} from './__fixtures__/compatibility/suite.js';
import { anthropicPrograms, cloudflarePrograms } from './__fixtures__/compatibility/typescript-peers.js';
import { typescriptPrograms } from './__fixtures__/compatibility/typescript-programs.js';
import { typescriptWorkflows } from './__fixtures__/compatibility/typescript-workflows.js';

// Programs in the shapes models write, run through run_code on every provider (TypeScript on
// worker-thread and QuickJS, Python on CPython). Each returns the value it states or fails with a
// message naming the fix; a case marked `gap` (for every provider, or in a suite's `gaps` for one)
// does neither yet and is expected to fail here, so fixing it turns this run red until it is unmarked.

interface Suite {
  readonly name: string;
  readonly runtime: CodeRuntime;
  readonly cases: readonly CompatibilityCase[];
  /** Cases that are gaps on this provider only (by style), with what it does instead. */
  readonly gaps?: Readonly<Record<string, string>>;
  /** The tools the programs call, when not the suite's own (./tools.ts), and what puts their state back before each. */
  readonly tools?: { readonly list: readonly Tool[]; readonly reset: () => void };
}

// The peers' programs call the peers' own tools (./peer-tools.ts), on both TypeScript providers.
const peers = { list: peerTools, reset: resetPeerTools };

const suites: Suite[] = [
  {
    name: 'TypeScript on @sluice/code-runtime-worker-thread',
    runtime: createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...typescriptPrograms, ...typescriptWorkflows],
  },
  {
    name: 'TypeScript on @sluice/code-runtime-quickjs',
    runtime: createQuickJsCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...typescriptPrograms, ...typescriptWorkflows],
  },
  {
    name: 'Cloudflare and Anthropic MCP styles on @sluice/code-runtime-worker-thread',
    runtime: createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...cloudflarePrograms, ...anthropicPrograms],
    tools: peers,
  },
  {
    name: 'Cloudflare and Anthropic MCP styles on @sluice/code-runtime-quickjs',
    runtime: createQuickJsCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...cloudflarePrograms, ...anthropicPrograms],
    tools: peers,
  },
  {
    name: 'Python on @sluice/code-runtime-python',
    runtime: createPythonCodeRuntime({ wallTimeMs: 20_000 }),
    cases: [...pythonPrograms, ...pythonWorkflows, ...pythonPeerStyles],
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
});

for (const { name, runtime, cases, gaps, tools } of suites) {
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
          tally.record(name, testCase, outcome);
          expect(outcome.verdict, outcome.detail).toBe(expected);
        },
        startup,
      );
    }
  });
}
