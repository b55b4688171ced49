import { foreignText, InvalidRequestError } from '@sluice/code-runtime';
import { compileSchema, type SchemaCheck } from './schema-validator.js';
import type { Tool } from './tool.js';
import { mapToolName, type ToolBindingNameOptions } from './tool-binding-name.js';

/** @internal A checked tool with its binding name and compiled schemas. */
export interface CatalogEntry {
  readonly tool: Tool;
  readonly namespace: string;
  readonly name: string;
  /** `namespace.name`, as the program writes it. */
  readonly binding: string;
  readonly checkInput: SchemaCheck;
  readonly checkOutput?: SchemaCheck;
}

/**
 * @internal Checks the tools, maps their names and compiles their schemas once. Throws
 * {@link InvalidRequestError} naming the tool (`tools[2].inputSchema`) for a malformed tool, a
 * duplicate name, a name that cannot be mapped, or two tools mapped to the same binding.
 */
export function buildCatalog(tools: readonly Tool[], options: ToolBindingNameOptions): CatalogEntry[] {
  if (!Array.isArray(tools)) fail('tools', 'tools must be an array of tools');
  const byName = new Map<string, number>();
  const byBinding = new Map<string, string>();
  return tools.map((tool: Tool, index) => {
    const at = `tools[${index}]`;
    if (typeof tool !== 'object' || tool === null) fail(at, `${at} must be a tool object`);
    if (typeof tool.name !== 'string' || tool.name === '') fail(`${at}.name`, `${at}.name must be a non-empty string`);
    const label = `Tool ${JSON.stringify(tool.name)} (${at})`;
    const earlier = byName.get(tool.name);
    if (earlier !== undefined) fail(`${at}.name`, `${label} has the same name as tools[${earlier}]`);
    byName.set(tool.name, index);
    if (typeof tool.description !== 'string') fail(`${at}.description`, `${label} needs a description string`);
    if (typeof tool.execute !== 'function') fail(`${at}.execute`, `${label} needs an execute function`);
    if (tool.parseInput !== undefined && typeof tool.parseInput !== 'function') {
      fail(`${at}.parseInput`, `${label}: parseInput must be a function when given`);
    }
    if (
      tool.inputValidation !== undefined &&
      tool.inputValidation !== 'schema' &&
      tool.inputValidation !== 'parse-input'
    ) {
      fail(`${at}.inputValidation`, `${label}: inputValidation must be 'schema' or 'parse-input'`);
    }
    const mapped = mapToolName(tool.name, options);
    if (typeof mapped === 'string') fail(`${at}.name`, `${label} ${mapped}`);
    const binding = `${mapped.namespace}.${mapped.name}`;
    const clash = byBinding.get(binding);
    if (clash !== undefined) {
      fail(
        `${at}.name`,
        `Tools ${JSON.stringify(clash)} and ${JSON.stringify(tool.name)} both map to ${binding}; rename one`,
      );
    }
    byBinding.set(binding, tool.name);
    const checkInput = schema(tool.inputSchema, `${at}.inputSchema`, label);
    const checkOutput =
      tool.outputSchema === undefined ? undefined : schema(tool.outputSchema, `${at}.outputSchema`, label);
    return { tool, ...mapped, binding, checkInput, ...(checkOutput === undefined ? {} : { checkOutput }) };
  });
}

function schema(value: unknown, field: string, label: string): SchemaCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(field, `${label}: ${field.slice(field.indexOf('.') + 1)} must be a JSON Schema object`);
  }
  try {
    return compileSchema(value as Tool['inputSchema']);
  } catch (error) {
    throw new InvalidRequestError({
      message: `${label}: ${field.slice(field.indexOf('.') + 1)} is not a usable JSON Schema: ${foreignText(error, 1024)}.`,
      field,
      cause: error,
    });
  }
}

function fail(field: string, message: string): never {
  throw new InvalidRequestError({ message: message.endsWith('.') ? message : `${message}.`, field });
}
