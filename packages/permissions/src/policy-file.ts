import { readFile } from 'node:fs/promises';
import { foreignText, InvalidSettingsError } from '@sluice/code-runtime';
import { createPolicy, type Policy } from './policy.js';
import type { PolicyDefinition } from './policy-definition.js';

/**
 * Parses a policy from JSON text and checks it like {@link createPolicy}. Throws
 * {@link InvalidSettingsError} for text that is not JSON (`setting: 'policy'`) or a malformed
 * policy (`setting` is the offending path, such as `rules[3].when.path`).
 */
export function parsePolicy(json: string): Policy {
  let definition: unknown;
  try {
    definition = JSON.parse(json);
  } catch (error) {
    throw new InvalidSettingsError({
      message: `Policy is not valid JSON: ${foreignText(error, 1024)}.`,
      setting: 'policy',
      cause: error,
    });
  }
  return createPolicy(definition as PolicyDefinition);
}

/**
 * Reads a policy from a JSON file (a path, or a `file:` URL such as
 * `new URL('./policy.json', import.meta.url)`). Throws {@link InvalidSettingsError} naming the file when it
 * cannot be read, is not JSON, or holds a malformed policy.
 */
export async function loadPolicyFile(path: string | URL): Promise<Policy> {
  let json: string;
  try {
    json = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidSettingsError({
      message: `Policy file ${String(path)} could not be read: ${foreignText(error, 1024)}.`,
      setting: 'policy',
      cause: error,
    });
  }
  try {
    return parsePolicy(json);
  } catch (error) {
    if (!InvalidSettingsError.isInstance(error)) throw error;
    throw new InvalidSettingsError({
      message: `${String(path)}: ${error.message}`,
      setting: error.setting,
      cause: error,
    });
  }
}
