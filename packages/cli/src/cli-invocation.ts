import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';

/**
 * The words that run this `sluice` again from `cwd`, for the commands it prints (`sluice resume …`),
 * so each runs as pasted: `npx sluice` when npx started it; `sluice` when a `sluice` is on the
 * `PATH` of the shell that started it (not inside an npm script, whose `PATH` the shell lacks);
 * else `node` and the script's path relative to `cwd`, as after `npm run demo` in a clone.
 */
export function invocationWords(script: string | undefined, cwd: string, env: NodeJS.ProcessEnv): string[] {
  if (env.npm_command === 'exec') return ['npx', 'sluice'];
  if (env.npm_lifecycle_event === undefined && onPath('sluice', env.PATH)) return ['sluice'];
  if (script === undefined) return ['sluice'];
  const path = relative(cwd, script);
  return ['node', path === '' || isAbsolute(path) ? script : path];
}

function onPath(command: string, path: string | undefined): boolean {
  for (const directory of (path ?? '').split(delimiter)) {
    if (directory === '') continue;
    try {
      accessSync(join(directory, command), constants.X_OK);
      return true;
    } catch {
      // Not here.
    }
  }
  return false;
}
