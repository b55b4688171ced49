import { foreignText, InvalidRequestError } from '@sluice/code-runtime';
import { compileSchema, type SchemaCheck } from './schema-validator.js';
import type { Tool } from './tool.js';
import { type ToolBindingName, type ToolBindingNameOptions, toolBindingNames } from './tool-binding-name.js';

/** @internal A checked tool with its binding name and compiled schemas. */
export interface CatalogEntry {
  readonly tool: Tool;
  readonly namespace: string;
  readonly name: string;
  /** `namespace.name`, as the program writes it. */
  readonly binding: string;
  /** Set when another tool maps to the same binding and this one took a suffix: the binding it would have had. */
  readonly shared?: string;
  readonly checkInput: SchemaCheck;
  readonly checkOutput?: SchemaCheck;
}

/**
 * @internal Checks the tools, maps their names and compiles their schemas once. Two tools that map
 * to the same binding both stay, the second with a suffix (see `toolBindingNames`). Throws
 * {@link InvalidRequestError} naming the tool (`tools[2].inputSchema`) for a malformed tool, a
 * duplicate name, or a name that cannot be mapped.
 */
export function buildCatalog(tools: readonly Tool[], options: ToolBindingNameOptions): CatalogEntry[] {
  if (!Array.isArray(tools)) fail('tools', 'tools must be an array of tools');
  const byName = new Map<string, number>();
  let bindings: Map<string, ToolBindingName | string> | undefined;
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
    // Named once every tool is known to be well formed: a name's binding depends on the others'.
    bindings ??= toolBindingNames(
      tools.map((each) =>
        typeof each === 'object' && each !== null && typeof each.name === 'string' ? each.name : '',
      ),
      options,
    );
    const mapped = bindings.get(tool.name)!;
    if (typeof mapped === 'string') fail(`${at}.name`, `${label} ${mapped}`);
    const binding = `${mapped.namespace}.${mapped.name}`;
    const checkInput = schema(tool.inputSchema, `${at}.inputSchema`, label);
    const checkOutput =
      tool.outputSchema === undefined ? undefined : schema(tool.outputSchema, `${at}.outputSchema`, label);
    return {
      tool,
      namespace: mapped.namespace,
      name: mapped.name,
      binding,
      ...(mapped.shared === undefined ? {} : { shared: mapped.shared }),
      checkInput,
      ...(checkOutput === undefined ? {} : { checkOutput }),
    };
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
