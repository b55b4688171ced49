import { InvalidRequestError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { toolBindingName, toolBindingNames } from './tool-binding-name.js';

describe('toolBindingName', () => {
  it('puts a name without a prefix into the default namespace', () => {
    expect(toolBindingName('search')).toEqual({ namespace: 'tools', name: 'search' });
    expect(toolBindingName('search', { defaultNamespace: 'host' })).toEqual({ namespace: 'host', name: 'search' });
  });

  it('turns the prefix before the first __, . or / into the namespace', () => {
    expect(toolBindingName('github__create_issue')).toEqual({ namespace: 'github', name: 'create_issue' });
    expect(toolBindingName('fs.read-file')).toEqual({ namespace: 'fs', name: 'read_file' });
    expect(toolBindingName('files/list')).toEqual({ namespace: 'files', name: 'list' });
    expect(toolBindingName('a.b.c')).toEqual({ namespace: 'a', name: 'b_c' });
  });

  it('drops the mcp__ prefix of an MCP client, so each server is its own namespace', () => {
    expect(toolBindingName('mcp__github__create_issue')).toEqual({ namespace: 'github', name: 'create_issue' });
    expect(toolBindingName('mcp__search')).toEqual({ namespace: 'mcp', name: 'search' });
    expect(toolBindingName('mcp__github__create_issue', { splitNamespaces: false })).toEqual({
      namespace: 'tools',
      name: 'mcp__github__create_issue',
    });
  });

  it('keeps everything in the default namespace when splitting is off', () => {
    expect(toolBindingName('github__create_issue', { splitNamespaces: false })).toEqual({
      namespace: 'tools',
      name: 'github__create_issue',
    });
    expect(toolBindingName('fs.read-file', { splitNamespaces: false })).toEqual({
      namespace: 'tools',
      name: 'fs_read_file',
    });
  });

  it('does not split on a separator at either end', () => {
    expect(toolBindingName('__init')).toEqual({ namespace: 'tools', name: '__init' });
    expect(toolBindingName('.hidden')).toEqual({ namespace: 'tools', name: '_hidden' });
    expect(toolBindingName('trailing.')).toEqual({ namespace: 'tools', name: 'trailing_' });
  });

  it('replaces each run of other characters with one underscore', () => {
    expect(toolBindingName('get weather!')).toEqual({ namespace: 'tools', name: 'get_weather_' });
    expect(toolBindingName('café-au-lait')).toEqual({ namespace: 'tools', name: 'caf_au_lait' });
    expect(toolBindingName('db:query--raw')).toEqual({ namespace: 'tools', name: 'db_query_raw' });
  });

  it('prefixes a leading digit, keeps a reserved word as a function name and suffixes it as a namespace', () => {
    expect(toolBindingName('3d-render')).toEqual({ namespace: 'tools', name: '_3d_render' });
    expect(toolBindingName('fs.delete')).toEqual({ namespace: 'fs', name: 'delete' });
    expect(toolBindingName('lambda')).toEqual({ namespace: 'tools', name: 'lambda' });
    expect(toolBindingName('import.run')).toEqual({ namespace: 'import_', name: 'run' });
  });

  it('throws InvalidRequestError for a name that cannot become a binding name', () => {
    expect(() => toolBindingName('__init__')).toThrow(/double-underscore/);
    expect(() => toolBindingName('x'.repeat(65))).toThrow(/at most 64 characters/);
    expect(() => toolBindingName('a', { defaultNamespace: 'not valid' })).toThrow(/default namespace/);
    const error = thrownBy(() => toolBindingName('__proto__'));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Tool name "__proto__" maps to tools\.__proto__/);
  });
});

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('toolBindingNames', () => {
  it('gives colliding tools distinct bindings by a rule that does not depend on their order', () => {
    const names = ['lab__get-x', 'lab__get_x', 'lab__get.x', 'lab__get_x_2', 'other__get-x'];
    const forward = toolBindingNames(names);
    expect(Object.fromEntries(toolBindingNames([...names].reverse()))).toEqual(Object.fromEntries(forward));
    expect(forward.get('lab__get_x')).toEqual({ namespace: 'lab', name: 'get_x' });
    expect(forward.get('lab__get_x_2')).toEqual({ namespace: 'lab', name: 'get_x_2' });
    // In code-point order of tool names ("-" before "."), skipping the taken get_x_2.
    expect(forward.get('lab__get-x')).toEqual({ namespace: 'lab', name: 'get_x_3', shared: 'lab.get_x' });
    expect(forward.get('lab__get.x')).toEqual({ namespace: 'lab', name: 'get_x_4', shared: 'lab.get_x' });
    expect(forward.get('other__get-x')).toEqual({ namespace: 'other', name: 'get_x' });
  });
});
