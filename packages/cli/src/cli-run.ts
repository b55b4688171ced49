import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { createRunCodeTool, summaryLine } from '@sluice/code-mode';
import {
  type CodeRunEvent,
  type CodeRunFailure,
  type CodeRuntimeLanguage,
  InvalidRequestError,
  InvalidSettingsError,
} from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createContext } from '@sluice/context';
import { loadPolicyFile, type Policy, type PolicyDefinition, type Tool } from '@sluice/permissions';
import { type CliIo, exitProgramFailure, exitSuccess, UsageError } from './cli-io.js';
import { ProgressLine } from './cli-progress.js';
import { loadToolsModule } from './cli-tools-module.js';

const languages: Record<string, CodeRuntimeLanguage> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.js': 'typescript',
  '.mjs': 'typescript',
  '.py': 'python',
};

/** Without `--policy`, every tool in the module is allowed: the operator chose them by naming the module. */
export const allowEverything: PolicyDefinition = { default: 'allow', rules: [] };

/** Options of `sluice run`. */
export interface RunCommandOptions {
  readonly program: string;
  readonly tools: string | undefined;
  readonly policy: string | undefined;
  readonly json: boolean;
}

/** `sluice run`: runs one program and prints what happened. Resolves with the exit code. */
export async function runCommand(options: RunCommandOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const path = resolve(io.cwd, options.program);
  if (!existsSync(path) || !statSync(path).isFile())
    throw new UsageError(`The program ${options.program} does not exist.`);
  const language = languages[extname(path)];
  if (language === undefined) {
    throw new UsageError(`sluice run needs a .ts, .js or .py program, got ${options.program}.`);
  }
  const program = readFileSync(path, 'utf8');
  if (program.trim() === '') throw new UsageError(`The program ${options.program} is empty.`);
  const tools = options.tools === undefined ? [] : await loadToolsModule(options.tools, io.cwd);
  const policy = options.policy === undefined ? allowEverything : await loadPolicy(options.policy);

  const ctx = createContext();
  ctx.provide('codeRuntime', language === 'python' ? createPythonCodeRuntime() : createWorkerThreadCodeRuntime());
  const progress = new ProgressLine(io.stderr);
  try {
    const runCode = buildRunCodeTool(ctx, tools, policy);
    const onEvent = (event: CodeRunEvent) => {
      if (event.type === 'host-call-start') progress.hostCall();
      if (event.type !== 'log' || options.json) return;
      const target = event.level === 'warn' || event.level === 'error' ? io.stderr : io.stdout;
      progress.print(target, `${event.text}\n`);
    };
    const { result } = await runCode.run({ code: program }, { onEvent, ...(signal === undefined ? {} : { signal }) });
    progress.stop();
    if (result === undefined) throw new UsageError(`The program ${options.program} is empty.`);
    if (options.json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      if (result.ok && result.value !== undefined) io.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`);
      if (!result.ok) io.stderr.write(describeFailure(result.failure));
      io.stderr.write(`sluice: ${summaryLine(result)}\n`);
    }
    return result.ok ? exitSuccess : exitProgramFailure;
  } finally {
    progress.stop();
    await ctx.dispose();
  }
}

function buildRunCodeTool(ctx: ReturnType<typeof createContext>, tools: Tool[], policy: Policy | PolicyDefinition) {
  try {
    return createRunCodeTool({ context: ctx, tools, policy });
  } catch (error) {
    if (InvalidRequestError.isInstance(error) || InvalidSettingsError.isInstance(error)) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}

/** Reads a policy file, turning every problem with it into one sentence. */
export async function loadPolicy(path: string): Promise<Policy> {
  try {
    return await loadPolicyFile(path);
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) throw new UsageError(`Bad policy: ${error.message}`);
    throw error;
  }
}

/** The failure for a person at a terminal: kind and message, then where and the stack when known. */
export function describeFailure(failure: CodeRunFailure): string {
  const lines = [`sluice: the program failed (${failure.kind}): ${failure.message}`];
  if (failure.kind === 'exception') {
    if (failure.line !== undefined) {
      lines.push(`  at line ${failure.line}${failure.column === undefined ? '' : `, column ${failure.column}`}`);
    }
    if (failure.stack !== undefined && failure.stack.trim() !== '') {
      lines.push(
        ...failure.stack
          .trimEnd()
          .split('\n')
          .map((line) => `  ${line}`),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
