import { InvalidSettingsError } from '@sluice/code-runtime';

const reference = /\$\{([^}]*)\}/g;
const variable = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/**
 * Replaces `${NAME}` with the variable's value in `environment`, and `${NAME:-fallback}` with the
 * value or, when it is unset or empty, the fallback. A `$` not followed by `{` stays as written.
 * Throws {@link InvalidSettingsError} naming `setting` for an unset variable without a fallback,
 * or a `${...}` that is not a variable reference, so a missing secret never reaches a server as text.
 */
export function expandVariables(
  text: string,
  setting: string,
  environment: Readonly<Record<string, string | undefined>>,
): string {
  return text.replace(reference, (whole, inner: string) => {
    const match = variable.exec(inner);
    if (match === null) {
      throw new InvalidSettingsError({
        message: `${setting} has ${whole}, which is not a variable reference; write \${NAME} or \${NAME:-default}.`,
        setting,
      });
    }
    const [, name, fallback] = match as unknown as [string, string, string | undefined];
    const value = environment[name];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      throw new InvalidSettingsError({
        message: `${setting} uses \${${name}}, which is not set in the environment of sluice mcp; set ${name}, or write \${${name}:-default}.`,
        setting,
      });
    }
    return value;
  });
}
