import type { Bindings, HostFunction } from './code-runtime.js';
import { InvalidRequestError } from './errors/invalid-request-error.js';

/** The longest binding name accepted, in characters. */
export const maxBindingNameLength = 64;

/** Reserved words of JavaScript (strict mode and module code included), which no binding may use. */
export const javascriptReservedWords: ReadonlySet<string> = new Set([
  'arguments', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default',
  'delete', 'do', 'else', 'enum', 'eval', 'export', 'extends', 'false', 'finally', 'for', 'function',
  'if', 'implements', 'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null', 'package',
  'private', 'protected', 'public', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true',
  'try', 'typeof', 'undefined', 'var', 'void', 'while', 'with', 'yield',
]); // biome-ignore format: one word list

/** Keywords of Python 3 (hard keywords only; soft keywords such as `match` are valid names). */
export const pythonReservedWords: ReadonlySet<string> = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue',
  'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
  'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]); // biome-ignore format: one word list

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Why `name` cannot be a binding name, or `undefined` when it can. A binding name is an ASCII
 * identifier valid in both JavaScript and Python, at most {@link maxBindingNameLength} characters,
 * not a reserved word of either language, and not a double-underscore name (`__proto__`,
 * `__class__`), which both languages treat as machinery rather than data. Names such as
 * `constructor` or `toString` are valid and are looked up as data, never on a prototype.
 * `role: 'function'` checks the name of a function inside a namespace, which is read as a property
 * (`lab.delete(...)`): it may be a reserved word. A namespace is a variable and may not.
 */
export function bindingNameProblem(name: unknown, role: 'namespace' | 'function' = 'namespace'): string | undefined {
  if (typeof name !== 'string') return `must be a string, got ${typeof name}`;
  if (name.length === 0) return 'must not be empty';
  if (name.length > maxBindingNameLength)
    return `must be at most ${maxBindingNameLength} characters, got ${name.length}`;
  if (!identifier.test(name)) {
    return `${JSON.stringify(name)} is not a portable identifier: use ASCII letters, digits and _, not starting with a digit`;
  }
  if (name.startsWith('__') && name.endsWith('__')) {
    return `${JSON.stringify(name)} is a double-underscore name, which JavaScript and Python reserve for object machinery`;
  }
  if (role === 'function') return undefined;
  if (javascriptReservedWords.has(name)) return `${JSON.stringify(name)} is a reserved word in JavaScript`;
  if (pythonReservedWords.has(name)) return `${JSON.stringify(name)} is a reserved word in Python`;
  return undefined;
}

/** Whether `name` is a valid binding name (of a namespace, or a `role: 'function'`). See {@link bindingNameProblem} for the rules. */
export function isValidBindingName(name: unknown, role: 'namespace' | 'function' = 'namespace'): name is string {
  return bindingNameProblem(name, role) === undefined;
}

/** Throws {@link InvalidRequestError} naming `field` when `name` is not a valid binding name of its `role`. */
export function validateBindingName(
  name: unknown,
  field: string,
  role: 'namespace' | 'function' = 'namespace',
): asserts name is string {
  const problem = bindingNameProblem(name, role);
  if (problem !== undefined) {
    throw new InvalidRequestError({ message: `Binding name at ${field} ${problem}.`, field });
  }
}

/** One granted host function, flattened out of {@link Bindings}. */
export interface BindingEntry {
  readonly namespace: string;
  readonly name: string;
  readonly fn: HostFunction;
}

/**
 * Checks a request's bindings and returns them as a `Map` keyed `namespace.name`, so that no later
 * lookup ever touches a prototype. Only own enumerable string keys count. Throws
 * {@link InvalidRequestError} on a bad namespace or name, a namespace that is not a plain object,
 * or a binding that is not a function.
 */
export function normalizeBindings(bindings: Bindings | undefined): Map<string, BindingEntry> {
  const entries = new Map<string, BindingEntry>();
  if (bindings === undefined) return entries;
  if (!isPlainRecord(bindings)) {
    throw new InvalidRequestError({ message: 'bindings must be a plain object of namespaces.', field: 'bindings' });
  }
  for (const namespace of Object.keys(bindings)) {
    validateBindingName(namespace, `bindings.${namespace}`);
    const functions = Object.getOwnPropertyDescriptor(bindings, namespace)?.value as unknown;
    if (!isPlainRecord(functions)) {
      throw new InvalidRequestError({
        message: `bindings.${namespace} must be a plain object of host functions.`,
        field: `bindings.${namespace}`,
      });
    }
    for (const name of Object.keys(functions)) {
      const field = `bindings.${namespace}.${name}`;
      validateBindingName(name, field, 'function');
      const fn = Object.getOwnPropertyDescriptor(functions, name)?.value as unknown;
      if (typeof fn !== 'function') {
        throw new InvalidRequestError({ message: `${field} must be a function, got ${typeof fn}.`, field });
      }
      entries.set(`${namespace}.${name}`, { namespace, name, fn: fn as HostFunction });
    }
  }
  return entries;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
