import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { discoveryNamespace } from '@sluice/code-mode';
import { type CodeRuntimeLanguage, foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { createPolicy, type Policy, type PolicyDefinition, parsePolicy, toolBindingName } from '@sluice/permissions';

/** One upstream MCP server, as the common `mcpServers` format gives it: a command to spawn, speaking MCP over stdio. */
export interface UpstreamServerConfig {
  /** The key in `mcpServers`; the tools' namespace in the program. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Added to a small inherited environment (`HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`). */
  readonly env: Readonly<Record<string, string>>;
  /** Absolute working directory: `cwd` resolved against the config file's folder, or that folder itself. */
  readonly cwd: string;
}

/** A checked configuration for {@link createSluiceMcpServer}. Make one with {@link parseMcpConfig} or {@link loadMcpConfig}. */
export interface SluiceMcpConfig {
  readonly upstreams: readonly UpstreamServerConfig[];
  /** The language programs are written in. Default `typescript`. */
  readonly language: CodeRuntimeLanguage;
  /** Decides every upstream call. Absent in the file means every upstream tool is allowed. */
  readonly policy: Policy;
  /** Whether the file named a policy; without one the server warns at start that everything is allowed. */
  readonly policyConfigured: boolean;
  /** Settings for the code runtime (budgets such as `wallTimeMs`), checked by the provider when the server starts. */
  readonly runtime: Readonly<Record<string, unknown>>;
  /** How long an upstream may take to start and list its tools, in milliseconds. Default 30,000. */
  readonly startTimeoutMs: number;
  /** How often a running program reports progress to a client that asked for it, in milliseconds. Default 1,000. */
  readonly progressIntervalMs: number;
  /** Estimated tokens the declarations may take before they list only names (code-mode's default when absent). */
  readonly declarationsTokenBudget?: number;
  /** Estimated tokens a rendered result may take (code-mode's default when absent). */
  readonly resultTokenBudget?: number;
}

const topKeys = ['$schema', 'mcpServers', 'sluice'];
const serverKeys = ['type', 'command', 'args', 'env', 'cwd'];
const sluiceKeys = [
  'language',
  'policy',
  'runtime',
  'startTimeoutMs',
  'progressIntervalMs',
  'declarationsTokenBudget',
  'resultTokenBudget',
];
const serverName = /^[A-Za-z][A-Za-z0-9_-]*$/;
const allowEverything: PolicyDefinition = { default: 'allow', rules: [] };

/**
 * Checks a configuration object strictly and returns it ready to use. `baseDirectory` is where
 * relative paths (a policy file, an upstream's `cwd`) are resolved from: the config file's folder.
 * Throws {@link InvalidSettingsError} whose `setting` is the offending path (`mcpServers.notes.args[1]`).
 */
export async function parseMcpConfig(value: unknown, baseDirectory: string): Promise<SluiceMcpConfig> {
  const top = record(value, '(config)');
  unknownKeys(top, topKeys, '');
  const servers = record(top.mcpServers, 'mcpServers');
  const upstreams: UpstreamServerConfig[] = [];
  const namespaces = new Map<string, string>();
  for (const [name, entry] of Object.entries(servers)) {
    const upstream = parseServer(name, entry, baseDirectory);
    const { namespace } = toolBindingName(`${name}__tool`);
    const clash = namespaces.get(namespace);
    if (clash !== undefined) {
      fail(`mcpServers.${name}`, `gives the same namespace as ${JSON.stringify(clash)} (${namespace}); rename one`);
    }
    namespaces.set(namespace, name);
    upstreams.push(upstream);
  }
  if (upstreams.length === 0) fail('mcpServers', 'must name at least one server');

  const sluice = top.sluice === undefined ? {} : record(top.sluice, 'sluice');
  unknownKeys(sluice, sluiceKeys, 'sluice');
  const language = sluice.language ?? 'typescript';
  if (language !== 'typescript' && language !== 'python') {
    fail('sluice.language', `must be "typescript" or "python", got ${describe(language)}`);
  }
  const runtime = sluice.runtime === undefined ? {} : record(sluice.runtime, 'sluice.runtime');
  const optional = (key: string, min: number, max: number) => integer(sluice[key], `sluice.${key}`, min, max);
  return {
    upstreams,
    language,
    policy: await readPolicy(sluice.policy, baseDirectory),
    policyConfigured: sluice.policy !== undefined,
    runtime: { ...runtime },
    startTimeoutMs: optional('startTimeoutMs', 100, 600_000) ?? 30_000,
    progressIntervalMs: optional('progressIntervalMs', 50, 60_000) ?? 1_000,
    ...optionalField('declarationsTokenBudget', optional('declarationsTokenBudget', 0, 1_000_000)),
    ...optionalField('resultTokenBudget', optional('resultTokenBudget', 200, 1_000_000)),
  };
}

/** Reads and checks a configuration file (see {@link parseMcpConfig}); errors name the file and the path in it. */
export async function loadMcpConfig(path: string): Promise<SluiceMcpConfig> {
  const absolute = resolve(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new InvalidSettingsError({
      message: `Config file ${path} could not be read: ${foreignText(error, 1024)}.`,
      setting: '(config)',
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidSettingsError({
      message: `Config file ${path} is not valid JSON: ${foreignText(error, 1024)}.`,
      setting: '(config)',
      cause: error,
    });
  }
  try {
    return await parseMcpConfig(value, dirname(absolute));
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    throw new InvalidSettingsError({ message: `${path}: ${error.message}`, setting: error.setting, cause: error });
  }
}

function parseServer(name: string, value: unknown, baseDirectory: string): UpstreamServerConfig {
  const at = `mcpServers.${name}`;
  if (!serverName.test(name) || name.includes('__') || name.length > 64) {
    fail(at, 'must be named with ASCII letters, digits, - and single _, starting with a letter, at most 64 characters');
  }
  if (name === discoveryNamespace) fail(at, `is named "${discoveryNamespace}", which is reserved for tool discovery`);
  const entry = record(value, at);
  if ('url' in entry) fail(`${at}.url`, 'is not supported: only stdio servers (command, args, env) can be upstreams');
  unknownKeys(entry, serverKeys, at);
  if (entry.type !== undefined && entry.type !== 'stdio') {
    fail(`${at}.type`, `must be "stdio" when given: only stdio servers are supported, got ${describe(entry.type)}`);
  }
  const command = text(entry.command, `${at}.command`);
  const args = entry.args === undefined ? [] : list(entry.args, `${at}.args`);
  const env: Record<string, string> = {};
  if (entry.env !== undefined) {
    for (const [key, item] of Object.entries(record(entry.env, `${at}.env`))) {
      if (typeof item !== 'string') fail(`${at}.env.${key}`, `must be a string, got ${describe(item)}`);
      env[key] = item;
    }
  }
  const cwd = entry.cwd === undefined ? baseDirectory : text(entry.cwd, `${at}.cwd`);
  return { name, command, args, env, cwd: isAbsolute(cwd) ? cwd : resolve(baseDirectory, cwd) };
}

async function readPolicy(value: unknown, baseDirectory: string): Promise<Policy> {
  if (value === undefined) return createPolicy(allowEverything);
  if (typeof value === 'string' && value !== '') {
    const path = resolve(baseDirectory, value);
    let json: string;
    try {
      json = await readFile(path, 'utf8');
    } catch (error) {
      fail('sluice.policy', `names a file that could not be read (${path}): ${foreignText(error, 1024)}`);
    }
    return rethrowAt(`sluice.policy (${path})`, () => parsePolicy(json));
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return rethrowAt('sluice.policy', () => createPolicy(value as PolicyDefinition));
  }
  fail('sluice.policy', `must be a policy file's path or a policy object, got ${describe(value)}`);
}

function rethrowAt(where: string, make: () => Policy): Policy {
  try {
    return make();
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    const inner = error.setting === 'policy' || error.setting === '' ? '' : `.${error.setting}`;
    throw new InvalidSettingsError({
      message: `${where}: ${error.message}`,
      setting: `sluice.policy${inner}`,
      cause: error,
    });
  }
}

function optionalField<Key extends string>(key: Key, value: number | undefined): Partial<Record<Key, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<Key, number>);
}

function integer(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(field, `must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(field, `must be an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') fail(field, `must be a non-empty string, got ${describe(value)}`);
  return value;
}

function list(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) fail(field, `must be an array of strings, got ${describe(value)}`);
  return value.map((item, index) => {
    if (typeof item !== 'string') fail(`${field}[${index}]`, `must be a string, got ${describe(item)}`);
    return item;
  });
}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], at: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      fail(at === '' ? key : `${at}.${key}`, `is not a known key; expected one of ${known.join(', ')}`);
    }
  }
}

function fail(setting: string, problem: string): never {
  throw new InvalidSettingsError({ message: `${setting} ${problem}.`, setting });
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
