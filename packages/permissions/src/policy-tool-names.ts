import { isReservedWord, mapToolName, type ToolBindingName, type ToolBindingNameOptions } from './tool-binding-name.js';

/** Naming options, and the tool's binding when a tool list gave it one of its own (a suffix; see `toolBindingNames`). */
export interface PolicyNamingOptions extends ToolBindingNameOptions {
  readonly binding?: ToolBindingName;
}

/**
 * @internal The names a policy rule may use for a tool: its own name (`everything__get-env`), the
 * binding the program calls (`everything.get_env`; `options.binding` when given), and that binding
 * written with `__` (`everything__get_env`). A name that cannot become a binding has only itself. Bindings are unique
 * in a tool list, so a rule naming one tool exactly by any of these names covers only that tool.
 */
export function policyToolNames(toolName: string, options: PolicyNamingOptions = {}): readonly string[] {
  const mapped = options.binding ?? mapToolName(toolName, options);
  if (typeof mapped === 'string') return [toolName];
  const names = [toolName];
  // A reserved word is also bound as `<name>_` (its binding before reserved words became callable by
  // their own name), so a rule written either way keeps covering the tool.
  const spellings = isReservedWord(mapped.name) ? [mapped.name, `${mapped.name}_`] : [mapped.name];
  for (const alias of spellings.flatMap((name) => [`${mapped.namespace}.${name}`, `${mapped.namespace}__${name}`])) {
    if (!names.includes(alias)) names.push(alias);
  }
  return names;
}
