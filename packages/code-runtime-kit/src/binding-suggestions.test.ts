import { describe, expect, it } from 'vitest';
import { closestBindings, maxListedBindings, notGrantedMessage } from './binding-suggestions.js';

const verbs = ['get', 'list', 'create', 'update', 'delete', 'search', 'archive', 'export', 'import', 'sync'];
const nouns = [
  'customer',
  'invoice',
  'order',
  'refund',
  'ticket',
  'shipment',
  'product',
  'coupon',
  'report',
  'user',
  'warehouse',
];
// 220 backoffice tools, 14 filesystem and 9 memory tools, and the discovery functions: as a large MCP setup.
const backoffice = verbs.flatMap((verb) =>
  nouns.flatMap((noun) => [`backoffice.${verb}_${noun}`, `backoffice.${verb}_${noun}s_v2`]),
);
const filesystem = ['read_file', 'write_file', 'edit_file', 'list_directory', 'create_directory', 'move_file', 'search_files', 'get_file_info', 'directory_tree', 'read_multiple_files', 'list_allowed_directories', 'read_media_file', 'read_text_file', 'list_directory_with_sizes'].map((name) => `filesystem.${name}`); // biome-ignore format: a word list
const memory = ['create_entities', 'create_relations', 'add_observations', 'delete_entities', 'delete_observations', 'delete_relations', 'read_graph', 'search_nodes', 'open_nodes'].map((name) => `memory.${name}`); // biome-ignore format: a word list
const granted = [...backoffice, ...filesystem, ...memory, 'sluice.searchTools', 'sluice.describeTool'];

describe('notGrantedMessage', () => {
  it('lists every granted function when there are only a handful', () => {
    expect(notGrantedMessage('tools', 'nope', ['tools.echo', 'tools.add'])).toBe(
      'tools.nope is not available to this program. Available: tools.add, tools.echo.',
    );
    expect(notGrantedMessage('tools', 'nope', [])).toBe(
      'tools.nope is not available to this program. Available: (none).',
    );
  });

  it('names the closest few of a large catalogue and how to search, instead of listing them all', () => {
    expect(granted.length).toBeGreaterThan(240);
    const message = notGrantedMessage('filesystem', 'read_fil', granted);
    expect(message).toMatch(
      /^filesystem\.read_fil is not available to this program\. Closest: filesystem\.read_file, .*\. 245 functions are granted; find others with `await sluice\.searchTools\("words"\)`\.$/,
    );
    expect(message.split(', ').length).toBeLessThanOrEqual(5);
    expect(message.length).toBeLessThan(400);
  });

  it('finds a misspelt or differently spelt name, and names search_tools for Python', () => {
    expect(closestBindings('backoffice.get_costumer', granted)[0]).toBe('backoffice.get_customer');
    expect(closestBindings('memory.searchNodes', granted)[0]).toBe('memory.search_nodes');
    expect(closestBindings('tools.list_directory', granted)[0]).toBe('filesystem.list_directory');
    expect(closestBindings('tools.search_tools', granted)).not.toContain('sluice.searchTools');
    expect(notGrantedMessage('tools', 'zzz', [...granted, 'sluice.search_tools'])).toMatch(
      /granted; find others with `await sluice\.search_tools\("words"\)`\.$/,
    );
    expect(notGrantedMessage('tools', 'zzz', granted.slice(0, maxListedBindings + 1))).toMatch(
      /^tools\.zzz is not available to this program\. 13 functions are granted\.$/,
    );
  });
});
