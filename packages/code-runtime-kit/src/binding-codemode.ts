/** The global Cloudflare's code mode calls every tool through: `codemode.getWeather(...)`. */
export const codemodeGlobal = 'codemode';

/**
 * What `codemode.<key>` reads as, for every key with a reading, given the run's bindings
 * (`namespace.name` each): a tool's own name when one namespace grants it (`get_weather` →
 * `tools.get_weather`), the flat spellings `<namespace>_<name>` and `<namespace>__<name>` that
 * code mode's name sanitizer and MCP clients give a server's tool (`github_create_issue` →
 * `github.create_issue`), and a namespace's name, which reads as the namespace when no tool has it.
 * A key with several readings maps to all of them joined by `' or '` (the program is told to pick).
 *
 * Self-contained and strict: the worker-thread provider serialises it into every run's context,
 * where it runs before the program; the QuickJS provider calls it on the host.
 */
export function codemodeReadings(bindings: readonly string[]): Record<string, string> {
  const readings: Record<string, string> = Object.create(null);
  const namespaces: Record<string, true> = Object.create(null);
  const add = (key: string, reading: string): void => {
    const known = readings[key];
    if (known === undefined) readings[key] = reading;
    else if (` or ${known} or `.indexOf(` or ${reading} or `) === -1) readings[key] = `${known} or ${reading}`;
  };
  for (let index = 0; index < bindings.length; index += 1) {
    const entry = bindings[index] as string;
    const dot = entry.indexOf('.');
    const namespace = entry.slice(0, dot);
    const name = entry.slice(dot + 1);
    namespaces[namespace] = true;
    add(name, entry);
    add(`${namespace}_${name}`, entry);
    add(`${namespace}__${name}`, entry);
  }
  const names = Object.keys(namespaces);
  for (let index = 0; index < names.length; index += 1) {
    const namespace = names[index] as string;
    if (readings[namespace] === undefined) readings[namespace] = namespace;
  }
  return readings;
}

/** The error a key with several readings throws when read: the program names the one it means. */
export function codemodeAmbiguity(key: string, readings: string): string {
  return `codemode.${key} is granted in more than one namespace; did you mean ${readings}?`;
}
