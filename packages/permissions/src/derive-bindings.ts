import {
  type Bindings,
  foreignText,
  type HostCallContext,
  type HostFunction,
  InvalidSettingsError,
  isValidBindingName,
  type JsonValue,
} from '@sluice/code-runtime';
import { type ApprovalCallback, type ApprovalRecord, requestApproval } from './approval.js';
import type { DenialCause, PermissionDecision } from './audit-log.js';
import { dropRefusedNulls } from './optional-nulls.js';
import { denialMessage, describeAvailable, invalidInputMessage, invalidOutputMessage } from './permission-messages.js';
import { createPolicy, isPolicy, type Policy } from './policy.js';
import type { PolicyDefinition } from './policy-definition.js';
import { evaluatePolicy, mayBeAllowed, type PolicyVerdict } from './policy-evaluate.js';
import { mapPositional } from './positional-arguments.js';
import type { ParsedInput, Tool } from './tool.js';
import { isReservedWord, type ToolBindingNameOptions } from './tool-binding-name.js';
import { buildCatalog, type CatalogEntry } from './tool-catalog.js';

/** Options for {@link deriveBindings}. */
export interface DeriveBindingsOptions extends ToolBindingNameOptions {
  /** Decides calls the policy says to `ask` about. Without it, every `ask` is a denial. */
  readonly approve?: ApprovalCallback;
  /** How long an `ask` waits for an answer before it is a denial, in milliseconds. Default 60,000. */
  readonly approvalTimeoutMs?: number;
  /** Receives every decision, allowed or denied, before the tool runs. A listener that throws is ignored. */
  readonly onDecision?: (decision: PermissionDecision) => void;
}

/**
 * A policy, or a function returning the policy in force. The function is called at every call,
 * so a policy swapped mid-run applies to the calls after it. A plain definition is checked once,
 * here, by `createPolicy`.
 */
export type PolicySource = Policy | PolicyDefinition | (() => Policy);

const optionKeys = ['approve', 'approvalTimeoutMs', 'onDecision', 'defaultNamespace', 'splitNamespaces'];
const maxTimerMs = 2_147_483_647;

/**
 * Turns tools and a policy into the bindings for one or many runs. Every host function decides at
 * the moment it is called: it reads the policy, refuses a denied call, validates the input against
 * the tool's `inputSchema`, asks the approval callback when the rule says `ask`, reports the
 * decision, and only then invokes `execute`. A refusal rejects with a message written for the model,
 * which the program receives as an error. Throws {@link InvalidSettingsError} for bad options or a
 * malformed policy and `InvalidRequestError` for malformed tools, duplicate or colliding names.
 */
export function deriveBindings(
  tools: readonly Tool[],
  policy: PolicySource,
  options: DeriveBindingsOptions = {},
): Bindings {
  const settings = checkOptions(options);
  const readPolicy = policySource(policy);
  const catalog = buildCatalog(tools, settings);
  const available = new WeakMap<Policy, string>();
  const availableText = (current: Policy): string => {
    let text = available.get(current);
    if (text === undefined) {
      text = describeAvailable(
        catalog
          .filter((entry) => mayBeAllowed(current, entry.tool.name, { ...settings, binding: entry }))
          .map((entry) => entry.binding),
      );
      available.set(current, text);
    }
    return text;
  };
  const namespaces: Record<string, Record<string, HostFunction>> = Object.create(null);
  for (const entry of catalog) {
    namespaces[entry.namespace] ??= Object.create(null);
    namespaces[entry.namespace]![entry.name] = hostFunction(entry, readPolicy, availableText, settings);
  }
  // A reserved word also answers to `<name>_`: Python's keywords need it (`lab.class_`), and programs
  // written when that was the only name keep working. Never over another tool's binding.
  for (const entry of catalog) {
    const functions = namespaces[entry.namespace]!;
    const alias = `${entry.name}_`;
    if (isReservedWord(entry.name) && functions[alias] === undefined) functions[alias] = functions[entry.name]!;
  }
  for (const functions of Object.values(namespaces)) Object.freeze(functions);
  return Object.freeze(namespaces);
}

interface Settings extends ToolBindingNameOptions {
  readonly approve?: ApprovalCallback;
  readonly approvalTimeoutMs: number;
  readonly onDecision?: (decision: PermissionDecision) => void;
}

function hostFunction(
  entry: CatalogEntry,
  readPolicy: () => Policy,
  availableText: (policy: Policy) => string,
  settings: Settings,
): HostFunction {
  const { tool, binding } = entry;
  return async (given: JsonValue, context: HostCallContext): Promise<JsonValue> => {
    const started = performance.now();
    // A positional call becomes the object the schema describes, and a null the schema refuses for an
    // optional property is left out, before anything else sees the input.
    const mapping =
      context.positional === undefined
        ? { input: given }
        : mapPositional(tool.inputSchema, binding, given, context.positional);
    const input =
      'input' in mapping
        ? dropRefusedNulls(tool.inputSchema, entry.checkInput, noArgument(entry, mapping.input))
        : given;
    const base = {
      time: new Date().toISOString(),
      runId: context.runId,
      callId: context.callId,
      tool: tool.name,
      binding,
      arguments: structuredClone(input),
    };
    const report = (fields: Omit<PermissionDecision, keyof typeof base | 'ms'>): void => {
      const ms = Math.round((performance.now() - started) * 1000) / 1000;
      try {
        settings.onDecision?.({ ...base, ...fields, ms });
      } catch {
        // A failing listener must not turn a decision into a different one.
      }
    };
    const deny = (
      deniedBy: DenialCause,
      message: string,
      verdict?: PolicyVerdict,
      approval?: ApprovalRecord,
    ): never => {
      report({
        decision: 'deny',
        deniedBy,
        ...verdictFields(verdict),
        ...(approval === undefined ? {} : { approval }),
        message,
      });
      throw new Error(message);
    };

    if ('problem' in mapping) return deny('validation', mapping.problem);
    let policy: Policy;
    try {
      policy = readPolicy();
      if (!isPolicy(policy)) throw new TypeError('the policy source returned something other than a policy');
    } catch {
      return deny('policy-error', denialMessage({ binding, cause: 'policy-error' }));
    }
    const verdict = evaluatePolicy(policy, tool.name, input, { ...settings, binding: entry });
    if (verdict.effect === 'deny') {
      const cause = verdict.rule === undefined ? 'default' : 'rule';
      return deny(cause, denialMessage({ binding, cause, verdict, available: availableText(policy) }), verdict);
    }
    const problems = tool.inputValidation === 'parse-input' ? undefined : entry.checkInput(input);
    if (problems !== undefined) return deny('validation', invalidInputMessage(binding, problems), verdict);
    let parsed: unknown = input;
    if (tool.parseInput !== undefined) {
      const outcome = await parseToolInput(tool, input);
      if (!outcome.ok) return deny('validation', invalidInputMessage(binding, outcome.problems), verdict);
      parsed = outcome.value;
    }
    let approval: ApprovalRecord | undefined;
    if (verdict.effect === 'ask') {
      const request = {
        tool: tool.name,
        binding,
        arguments: structuredClone(input),
        runId: context.runId,
        callId: context.callId,
        ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
      };
      approval = await requestApproval(settings.approve, request, context.signal, settings.approvalTimeoutMs);
      if (approval.outcome === 'allow' && context.signal.aborted) approval = { outcome: 'aborted', ms: approval.ms };
      if (approval.outcome !== 'allow') {
        const message = denialMessage({
          binding,
          cause: 'approval',
          approval,
          timeoutMs: settings.approvalTimeoutMs,
          available: availableText(policy),
        });
        return deny('approval', message, verdict, approval);
      }
    }
    report({ decision: 'allow', ...verdictFields(verdict), ...(approval === undefined ? {} : { approval }) });
    const output = await tool.execute(parsed as JsonValue, {
      signal: context.signal,
      runId: context.runId,
      callId: context.callId,
      ...(context.idempotencyKey === undefined ? {} : { idempotencyKey: context.idempotencyKey }),
    });
    const outputProblems = entry.checkOutput?.(output);
    if (outputProblems !== undefined) throw new Error(invalidOutputMessage(binding, outputProblems));
    return output;
  };
}

/**
 * A call with no argument arrives as `null`. For a tool whose input schema accepts `{}` (no required
 * property) and refuses `null`, that is the empty object, before the policy and the schema see it:
 * `tools.list_customers()` works as the declarations promise, on every provider.
 */
function noArgument(entry: CatalogEntry, input: JsonValue): JsonValue {
  if (input !== null || entry.checkInput(null) === undefined) return input;
  return entry.checkInput({}) === undefined ? {} : input;
}

function verdictFields(verdict: PolicyVerdict | undefined): Pick<PermissionDecision, 'effect' | 'rule'> {
  if (verdict === undefined) return {};
  return verdict.rule === undefined ? { effect: verdict.effect } : { effect: verdict.effect, rule: verdict.rule };
}

function policySource(policy: PolicySource): () => Policy {
  if (typeof policy === 'function') return policy;
  if (isPolicy(policy)) return () => policy;
  const created = createPolicy(policy);
  return () => created;
}

function checkOptions(options: DeriveBindingsOptions): Settings {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidSettingsError({ message: 'deriveBindings options must be an object.', setting: 'options' });
  }
  for (const key of Object.keys(options)) {
    if (!optionKeys.includes(key)) {
      optionError(key, `is not a known option; expected one of ${optionKeys.join(', ')}`);
    }
  }
  const { approve, onDecision, defaultNamespace, splitNamespaces } = options;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? 60_000;
  if (approve !== undefined && typeof approve !== 'function') optionError('approve', 'must be a function');
  if (onDecision !== undefined && typeof onDecision !== 'function') optionError('onDecision', 'must be a function');
  if (!Number.isInteger(approvalTimeoutMs) || approvalTimeoutMs < 1 || approvalTimeoutMs > maxTimerMs) {
    optionError('approvalTimeoutMs', `must be an integer from 1 to ${maxTimerMs}, got ${String(approvalTimeoutMs)}`);
  }
  if (defaultNamespace !== undefined && !isValidBindingName(defaultNamespace)) {
    optionError('defaultNamespace', `must be a valid binding name, got ${JSON.stringify(defaultNamespace)}`);
  }
  if (splitNamespaces !== undefined && typeof splitNamespaces !== 'boolean') {
    optionError('splitNamespaces', 'must be true or false');
  }
  return {
    approvalTimeoutMs,
    ...(approve === undefined ? {} : { approve }),
    ...(onDecision === undefined ? {} : { onDecision }),
    ...(defaultNamespace === undefined ? {} : { defaultNamespace }),
    ...(splitNamespaces === undefined ? {} : { splitNamespaces }),
  };
}

function optionError(setting: string, problem: string): never {
  throw new InvalidSettingsError({ message: `Option ${setting} ${problem}.`, setting });
}

/** A tool's own parse of its input, read defensively: a throw or a malformed answer is a refusal. */
async function parseToolInput(tool: Tool, input: JsonValue): Promise<ParsedInput> {
  try {
    const outcome = await tool.parseInput!(structuredClone(input));
    if (outcome?.ok === true) return { ok: true, value: outcome.value };
    if (outcome?.ok === false && Array.isArray(outcome.problems) && outcome.problems.length > 0) {
      return { ok: false, problems: outcome.problems.map((problem) => foreignText(problem, 512)) };
    }
    return { ok: false, problems: ['the tool refused it'] };
  } catch (error) {
    return { ok: false, problems: [foreignText(error, 512)] };
  }
}
