import { describe, expect, it } from 'vitest';
import {
  bindingNameProblem,
  isValidBindingName,
  javascriptReservedWords,
  maxBindingNameLength,
  normalizeBindings,
  pythonReservedWords,
  validateBindingName,
} from './binding-name.js';
import type { Bindings, HostFunction } from './code-runtime.js';
import { InvalidRequestError } from './errors/invalid-request-error.js';

const hostFunction: HostFunction = async () => null;

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

describe('bindingNameProblem', () => {
  it.each([
    'tools',
    'search',
    'a',
    '_',
    '_private',
    'snake_case',
    'camelCase',
    'PascalCase',
    'x1',
    'match',
    'type',
    'a'.repeat(maxBindingNameLength),
  ])('accepts the portable identifier %j', (name) => {
    expect(bindingNameProblem(name)).toBeUndefined();
    expect(isValidBindingName(name)).toBe(true);
  });

  it.each([
    ['', 'must not be empty'],
    ['1tools', 'not a portable identifier'],
    ['my-tools', 'not a portable identifier'],
    ['my tools', 'not a portable identifier'],
    ['tools.search', 'not a portable identifier'],
    ['$tools', 'not a portable identifier'],
    ['café', 'not a portable identifier'],
    ['ｔｏｏｌｓ', 'not a portable identifier'],
    ['tools\n', 'not a portable identifier'],
    ['tools\u0000', 'not a portable identifier'],
    ['a'.repeat(maxBindingNameLength + 1), `at most ${maxBindingNameLength} characters`],
  ])('refuses %j', (name, problem) => {
    expect(bindingNameProblem(name)).toContain(problem);
    expect(isValidBindingName(name)).toBe(false);
  });

  it.each([undefined, null, 1, true, Symbol('tools'), {}, ['tools']])('refuses the non-string %s', (name) => {
    expect(bindingNameProblem(name)).toMatch(/^must be a string, got /);
  });

  it.each(['__proto__', '__class__', '__init__', '__dict__', '__builtins__', '__'])(
    'refuses the double-underscore name %j',
    (name) => {
      expect(bindingNameProblem(name)).toContain('double-underscore');
    },
  );

  it('accepts names that only start or only end with two underscores', () => {
    expect(bindingNameProblem('__private')).toBeUndefined();
    expect(bindingNameProblem('trailing__')).toBeUndefined();
  });

  it('refuses every JavaScript reserved word', () => {
    for (const word of javascriptReservedWords) {
      expect(bindingNameProblem(word), word).toMatch(/reserved word in JavaScript|double-underscore/);
    }
  });

  it('refuses every Python keyword', () => {
    for (const word of pythonReservedWords) {
      expect(bindingNameProblem(word), word).toMatch(/reserved word in (JavaScript|Python)/);
    }
  });

  it.each(['def', 'lambda', 'None', 'True', 'nonlocal', 'elif', 'pass', 'raise'])(
    'names Python for the Python-only keyword %j',
    (word) => {
      expect(bindingNameProblem(word)).toContain('reserved word in Python');
    },
  );

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'prototype'])(
    'accepts the Object.prototype member name %j',
    (name) => {
      expect(bindingNameProblem(name)).toBeUndefined();
    },
  );

  it('lists exactly the hard keywords of Python 3', () => {
    // Python's keyword.kwlist, which is sorted the same way.
    // biome-ignore format: one word list
    const kwlist = [
      'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue',
      'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
      'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
    ];
    expect([...pythonReservedWords].sort()).toEqual(kwlist);
  });
});

describe('validateBindingName', () => {
  it('returns nothing for a valid name', () => {
    expect(validateBindingName('search', 'bindings.tools.search')).toBeUndefined();
  });

  it('throws InvalidRequestError naming the field and the problem', () => {
    const error = thrown(() => validateBindingName('class', 'bindings.class'));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'bindings.class' });
    expect((error as Error).message).toBe('Binding name at bindings.class "class" is a reserved word in JavaScript.');
  });
});

describe('normalizeBindings', () => {
  it('returns an empty map for absent bindings', () => {
    expect(normalizeBindings(undefined).size).toBe(0);
  });

  it('flattens namespaces into entries keyed namespace.name', () => {
    const search: HostFunction = async () => 'found';
    const fetchPage: HostFunction = async () => 'page';
    const entries = normalizeBindings({ tools: { search, fetchPage }, memory: {} });
    expect([...entries.keys()]).toEqual(['tools.search', 'tools.fetchPage']);
    expect(entries.get('tools.search')).toEqual({ namespace: 'tools', name: 'search', fn: search });
  });

  it('accepts a namespace with a null prototype', () => {
    const tools = Object.assign(Object.create(null) as Record<string, HostFunction>, { search: hostFunction });
    expect([...normalizeBindings({ tools }).keys()]).toEqual(['tools.search']);
  });

  it('looks up constructor, toString and hasOwnProperty as own data', () => {
    const construct: HostFunction = async () => 1;
    const stringify: HostFunction = async () => 2;
    const owns: HostFunction = async () => 3;
    const entries = normalizeBindings({
      constructor: { constructor: construct, toString: stringify, hasOwnProperty: owns },
    });
    expect(entries.get('constructor.constructor')?.fn).toBe(construct);
    expect(entries.get('constructor.toString')?.fn).toBe(stringify);
    expect(entries.get('constructor.hasOwnProperty')?.fn).toBe(owns);
  });

  it('never picks a name up from Object.prototype', () => {
    const entries = normalizeBindings({ tools: {} });
    expect(entries.size).toBe(0);
    expect(entries.has('tools.constructor')).toBe(false);
    expect(entries.has('tools.toString')).toBe(false);
  });

  it('refuses a namespace key __proto__ parsed from JSON text', () => {
    const bindings = JSON.parse('{"__proto__": {"search": 1}}') as Bindings;
    expect(Object.keys(bindings)).toEqual(['__proto__']);
    const error = thrown(() => normalizeBindings(bindings));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'bindings.__proto__' });
  });

  it('refuses a function key __proto__ that is an own property', () => {
    const tools = JSON.parse('{"__proto__": null}') as Record<string, unknown>;
    Object.defineProperty(tools, '__proto__', { value: hostFunction, enumerable: true });
    const error = thrown(() => normalizeBindings({ tools } as unknown as Bindings));
    expect(error).toMatchObject({ name: 'InvalidRequestError', field: 'bindings.tools.__proto__' });
  });

  it('takes a reserved word as a function name, read as a property (`lab.delete(...)`), but not as a namespace', () => {
    const entries = normalizeBindings({ lab: { delete: hostFunction, import: hostFunction, class: hostFunction } });
    expect([...entries.keys()]).toEqual(['lab.delete', 'lab.import', 'lab.class']);
    expect(bindingNameProblem('delete', 'function')).toBeUndefined();
    expect(bindingNameProblem('__proto__', 'function')).toContain('double-underscore');
    const error = thrown(() => normalizeBindings({ import: { search: hostFunction } }));
    expect(error).toMatchObject({ field: 'bindings.import' });
    expect((error as Error).message).toContain('reserved word in JavaScript');
  });

  it('refuses a Python keyword as a namespace name', () => {
    const error = thrown(() => normalizeBindings({ lambda: { search: hostFunction } }));
    expect(error).toMatchObject({ field: 'bindings.lambda' });
  });

  it('refuses a namespace whose prototype is not Object.prototype', () => {
    const inherited = Object.create({ search: hostFunction }) as Record<string, HostFunction>;
    const error = thrown(() => normalizeBindings({ tools: inherited }));
    expect(error).toMatchObject({ field: 'bindings.tools' });
    expect((error as Error).message).toContain('plain object');
  });

  it('refuses a class instance as a namespace', () => {
    class Tools {
      search = hostFunction;
    }
    const error = thrown(() => normalizeBindings({ tools: new Tools() } as unknown as Bindings));
    expect(error).toMatchObject({ field: 'bindings.tools' });
  });

  it.each([
    ['an array', [hostFunction]],
    ['a function', hostFunction],
    ['null', null],
    ['a string', 'search'],
  ])('refuses %s as a namespace', (_label, namespace) => {
    const error = thrown(() => normalizeBindings({ tools: namespace } as unknown as Bindings));
    expect(error).toMatchObject({ field: 'bindings.tools' });
  });

  it.each([
    ['an array', [{ search: hostFunction }]],
    ['null', null],
    ['a Map', new Map([['tools', { search: hostFunction }]])],
  ])('refuses %s as the bindings object', (_label, bindings) => {
    const error = thrown(() => normalizeBindings(bindings as unknown as Bindings));
    expect(error).toMatchObject({ field: 'bindings' });
  });

  it('refuses a binding that is not a function', () => {
    const error = thrown(() => normalizeBindings({ tools: { search: 'search' } } as unknown as Bindings));
    expect(error).toMatchObject({ field: 'bindings.tools.search' });
    expect((error as Error).message).toBe('bindings.tools.search must be a function, got string.');
  });

  it('never invokes a getter on a namespace', () => {
    let reads = 0;
    const tools = {};
    Object.defineProperty(tools, 'search', {
      enumerable: true,
      get() {
        reads += 1;
        return hostFunction;
      },
    });
    const error = thrown(() => normalizeBindings({ tools } as Bindings));
    expect(error).toMatchObject({ field: 'bindings.tools.search' });
    expect(reads).toBe(0);
  });

  it('never invokes a getter on the bindings object', () => {
    let reads = 0;
    const bindings = {};
    Object.defineProperty(bindings, 'tools', {
      enumerable: true,
      get() {
        reads += 1;
        return { search: hostFunction };
      },
    });
    const error = thrown(() => normalizeBindings(bindings as Bindings));
    expect(error).toMatchObject({ field: 'bindings.tools' });
    expect(reads).toBe(0);
  });

  it('ignores symbol keys and non-enumerable keys', () => {
    const tools: Record<string | symbol, unknown> = { search: hostFunction, [Symbol('hidden')]: hostFunction };
    Object.defineProperty(tools, 'secret', { value: hostFunction, enumerable: false });
    expect([...normalizeBindings({ tools } as unknown as Bindings).keys()]).toEqual(['tools.search']);
  });

  it('reads each function once, so a later change to the bindings object does not reach the map', () => {
    const first: HostFunction = async () => 'first';
    const tools: Record<string, HostFunction> = { search: first };
    const entries = normalizeBindings({ tools });
    tools.search = async () => 'second';
    expect(entries.get('tools.search')?.fn).toBe(first);
  });
});
