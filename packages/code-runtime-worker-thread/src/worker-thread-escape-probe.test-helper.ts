import type { CodeRuntime, HostFunction } from '@sluice/code-runtime';

// Each case returns what it found; an empty list means the defence held. `escapes` reports an
// object whose prototype chain does not end at this context's Object.prototype (it came from the
// worker or the host), and any way it offers to compile code that can see `process`.
export const probe = `
const ownRoot = Object.getPrototypeOf({});
function rootOf(value: object): object | null {
  let current: object | null = value;
  let last: object | null = null;
  for (let hops = 0; current !== null && hops < 100; hops += 1) {
    last = current;
    current = Object.getPrototypeOf(current);
  }
  return last;
}
function escapes(value: unknown, label = 'value'): string[] {
  const found: string[] = [];
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return found;
  const root = rootOf(value);
  if (root !== ownRoot && root !== value) found.push(label + ': foreign object');
  const keys = ['constructor', '__proto__'];
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index]!;
    try {
      const make = (value as any)[key].constructor;
      const reached = make('return typeof process')();
      found.push(label + ': compiled code via ' + key + ' (process is ' + reached + ')');
    } catch {}
  }
  return found;
}
`;

/** Runs `body` after {@link probe} and returns its value; a run that fails throws, naming its failure. */
export async function findingsOf(
  runtime: CodeRuntime,
  body: string,
  bindings: Record<string, Record<string, HostFunction>>,
): Promise<unknown> {
  const result = await runtime.run({ program: `${probe}\n${body}`, bindings });
  if (!result.ok) throw new Error(`the probe failed: ${JSON.stringify(result.failure)}`);
  return result.value;
}
