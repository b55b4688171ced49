import { createRunCodeTool, formatMs } from '@sluice/code-mode';
import type { CodeRuntime, FailureKind } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createQuickJsCodeRuntime } from '@sluice/code-runtime-quickjs';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createContext } from '@sluice/context';
import { type CliIo, exitProgramFailure, exitSuccess } from '../cli-io.js';
import { cleanupProgram, type DemoProgram, historyProgram, offsiteProgram, triageProgram } from './demo-programs.js';
import { demoPolicy, demoTools } from './demo-tools.js';

/** Options for {@link runDemo}. */
export interface DemoOptions {
  /** The wall clock of the runtime the last program runs out of. Default 1,500 ms. */
  readonly shortWallTimeMs?: number;
}

interface Scenario {
  readonly program: DemoProgram;
  /** `typescript` is the worker-thread provider; `quickjs` the QuickJS one; `short` worker-thread with a short wall clock. */
  readonly runtime: 'typescript' | 'quickjs' | 'python' | 'short';
  /** How the run should end: `ok`, or the failure kind the scenario exists to show. */
  readonly expected: 'ok' | FailureKind;
}

const scenarios: readonly Scenario[] = [
  { program: triageProgram, runtime: 'typescript', expected: 'ok' },
  { program: offsiteProgram, runtime: 'python', expected: 'ok' },
  { program: cleanupProgram, runtime: 'quickjs', expected: 'ok' },
  { program: historyProgram, runtime: 'short', expected: 'timeout' },
];

const rule = (title: string) => `\n==== ${title} ${'='.repeat(Math.max(4, 96 - title.length))}\n`;
const subRule = (title: string) => `---- ${title} ${'-'.repeat(Math.max(4, 96 - title.length))}\n`;

/**
 * `sluice demo`: runs four programs through the `run_code` tool, against in-memory sample tools
 * and a policy, on the worker-thread, QuickJS and Python runtimes, and prints each exactly as the model
 * would send and read it, then the model round trips the programs replaced. Resolves with 0 when
 * every run ended as the demo intends (the last one by its wall clock), 1 otherwise.
 */
export async function runDemo(io: CliIo, options: DemoOptions = {}): Promise<number> {
  const shortWallTimeMs = options.shortWallTimeMs ?? 1_500;
  const contexts = {
    typescript: contextWith(createWorkerThreadCodeRuntime()),
    quickjs: contextWith(createQuickJsCodeRuntime()),
    python: contextWith(createPythonCodeRuntime()),
    short: contextWith(createWorkerThreadCodeRuntime({ wallTimeMs: shortWallTimeMs })),
  };
  const out = (text: string) => io.stdout.write(text);
  let toolCalls = 0;
  let unexpected = 0;
  try {
    out(
      'Sluice demo: the model writes one program instead of making many tool calls.\n' +
        'Tools: an issue tracker (42 issues in projects WEB, API and PAY) and a weather service (8 office\n' +
        'cities), in memory. Policy: every tool is allowed, except closing PAY issues.\n',
    );
    const introduction = createRunCodeTool({ context: contexts.typescript, tools: demoTools(), policy: demoPolicy });
    out(rule('What the model reads first: the run_code tool, for the TypeScript runtime'));
    out(`name: ${introduction.name}\ndescription:\n${introduction.description}\n`);
    out('(For the Python runtime the same tools are declared as typed async stubs: see `sluice declarations`.)\n');

    for (const [index, scenario] of scenarios.entries()) {
      const context = contexts[scenario.runtime];
      const runCode = createRunCodeTool({ context, tools: demoTools(), policy: demoPolicy });
      const { program } = scenario;
      const note =
        scenario.runtime === 'short'
          ? ` This runtime's wall clock is ${formatMs(shortWallTimeMs)}.`
          : scenario.runtime === 'quickjs'
            ? ' It runs on the QuickJS runtime (QuickJS in WebAssembly; `sluice run --runtime quickjs`), the others on TypeScript on worker threads or Python.'
            : '';
      out(rule(`${index + 1}. ${program.title}`));
      out(`${program.point}${note}\n\n`);
      out(subRule('The model calls run_code with'));
      out(`description: ${program.description}\ncode:\n${program.code.replace(/^/gm, '    ')}\n\n`);
      const { result, rendered } = await runCode.run({ code: program.code, description: program.description });
      out(subRule('The model reads back'));
      out(rendered.text);
      const ended = result === undefined ? 'not run' : result.ok ? 'ok' : result.failure.kind;
      if (ended !== scenario.expected) {
        unexpected += 1;
        out(`\n(demo: expected this run to end with ${scenario.expected}, but it ended with ${ended})\n`);
      }
      toolCalls += result?.calls.length ?? 0;
    }

    out(rule('Model round trips'));
    out(
      `The ${scenarios.length} programs made ${toolCalls} tool calls. Called directly, each tool call is a model round trip:\n` +
        `${toolCalls} round trips, each sending the whole conversation back through the model. As programs: ` +
        `${scenarios.length} round trips, and only the logs and return values entered the context. ` +
        `${toolCalls - scenarios.length} round trips replaced.\n`,
    );
    return unexpected === 0 ? exitSuccess : exitProgramFailure;
  } finally {
    await Promise.all(Object.values(contexts).map((context) => context.dispose()));
  }
}

function contextWith(runtime: CodeRuntime) {
  const context = createContext();
  context.provide('codeRuntime', runtime);
  return context;
}
