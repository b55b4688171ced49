import { existsSync, statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { foreignText, type JsonObject } from '@sluice/code-runtime';
import type { Tool } from '@sluice/permissions';
import { UsageError } from './cli-io.js';

const typescriptExtensions = ['.ts', '.mts', '.cts', '.tsx'];
const javascriptExtensions = ['.js', '.mjs', '.cjs'];

/**
 * Loads the tools a module exports (see {@link collectTools} for the shapes accepted); TypeScript
 * modules are compiled on the fly by tsx. A tool is an object with a string `name` and an `execute`
 * function; a missing `description` or `inputSchema` becomes `''` or `{}`. Throws
 * {@link UsageError} for a missing file, a module that fails to load, or one that exports nothing usable.
 */
export async function loadToolsModule(path: string, cwd: string): Promise<Tool[]> {
  const file = resolve(cwd, path);
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`The tools module ${path} does not exist.`);
  const extension = extname(file);
  if (![...typescriptExtensions, ...javascriptExtensions].includes(extension)) {
    throw new UsageError(`The tools module ${path} must be a .ts or .js file, got ${extension || 'no extension'}.`);
  }
  let namespace: Record<string, unknown>;
  try {
    if (typescriptExtensions.includes(extension)) {
      const { tsImport } = await import('tsx/esm/api');
      namespace = (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
    } else {
      namespace = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    }
  } catch (error) {
    throw new UsageError(
      `The tools module ${path} failed to load: ${loadProblem(foreignText(error, 4096), file, path, cwd)}`,
    );
  }
  const tools = collectTools(namespace, path);
  if (tools.length === 0) {
    throw new UsageError(
      `The tools module ${path} exports no tools; export an array of { name, description, inputSchema, execute } as \`tools\` or default, or async functions.`,
    );
  }
  return tools;
}

/**
 * The tools in a module namespace, each name once. An exported array (`tools`, else `default`) is
 * used alone and must hold only tools; otherwise tool objects among the exports (and among the
 * members of a default object), else exported functions. Exported for tests.
 */
export function collectTools(namespace: Record<string, unknown>, path = 'module'): Tool[] {
  for (const [exportName, source] of [
    ['tools', namespace.tools],
    ['default', namespace.default],
  ] as const) {
    if (!Array.isArray(source)) continue;
    return unique(
      source.map((candidate, index) => {
        const tool = asToolObject(candidate);
        if (tool === undefined) {
          throw new UsageError(
            `The tools module ${path} exports ${exportName}[${index}], which is not a tool: it needs a string name and an execute function.`,
          );
        }
        return tool;
      }),
    );
  }
  const entries = Object.entries(namespace).filter(([name]) => name !== 'default');
  const fallback = namespace.default;
  if (isRecord(fallback) && asToolObject(fallback) === undefined) entries.push(...Object.entries(fallback));
  else if (fallback !== undefined) entries.push(['default', fallback]);
  const objects = entries.flatMap(([, candidate]) => asToolObject(candidate) ?? []);
  if (objects.length > 0) return unique(objects);
  return unique(
    entries.flatMap(([name, candidate]) => (typeof candidate === 'function' ? [functionTool(name, candidate)] : [])),
  );
}

/**
 * The first line of a load error; for esbuild's `Transform failed with 1 error:` (a syntax error that
 * tsx met), the error itself as `file:line:column: text`, the file named as it was given (else relative to `cwd`).
 */
export function loadProblem(text: string, file: string, given: string, cwd: string): string {
  const [first = '', ...rest] = text.split('\n');
  if (!/^Transform failed with \d+ errors?:$/.test(first.trim())) return first;
  const located = rest
    .map((line) => /^(.+?):(\d+):(\d+): (?:ERROR: )?(.*)$/.exec(line.trim()))
    .find((match) => match !== null);
  if (!located) return rest.find((line) => line.trim() !== '')?.trim() ?? first;
  const [, where = '', line, column, message] = located;
  const name = where === file ? given : isAbsolute(where) ? relative(cwd, where) : where;
  return `${name}:${line}:${column}: ${message}`;
}

function unique(tools: readonly Tool[]): Tool[] {
  const byName = new Map<string, Tool>();
  for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
  return [...byName.values()];
}

function functionTool(name: string, candidate: unknown): Tool {
  const execute = candidate as Tool['execute'];
  return { name, description: '', inputSchema: {}, execute: (input, context) => execute(input, context) };
}

function asToolObject(candidate: unknown): Tool | undefined {
  if (!isRecord(candidate) || typeof candidate.name !== 'string' || typeof candidate.execute !== 'function')
    return undefined;
  const tool = candidate as unknown as Tool;
  return {
    ...tool,
    name: tool.name,
    description: typeof tool.description === 'string' ? tool.description : '',
    inputSchema: isRecord(tool.inputSchema) ? tool.inputSchema : ({} as JsonObject),
    execute: tool.execute.bind(tool),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
