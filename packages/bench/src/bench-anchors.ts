import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Where anchor packages are installed on demand, outside the workspace install (never built by `npm test`). */
export const anchorsDir = join(import.meta.dirname, '..', '.anchors');

/** The anchor packages and the versions measured (the research used the same ones). */
export const anchorPackages = {
  'isolated-vm': '5.0.4',
  'quickjs-emscripten': '0.32.0',
  '@pydantic/monty': '0.0.18',
} as const;

/** `require` rooted in the anchors folder. */
export const anchorRequire = createRequire(join(anchorsDir, 'package.json'));

/** Whether an anchor package can be loaded, and if not, why. */
export function anchorProblem(name: keyof typeof anchorPackages): string | undefined {
  try {
    anchorRequire(name);
    return undefined;
  } catch (error) {
    return `${name} is not installed or does not load here (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
}

/**
 * Installs the anchor packages with npm into {@link anchorsDir} unless they are already there.
 * isolated-vm is a native addon compiled by node-gyp, which takes a minute or two the first time.
 * Returns a reason per package that could not be had; the runner prints it and skips that anchor.
 */
export function ensureAnchors(): Record<string, string> {
  const missing = (Object.keys(anchorPackages) as Array<keyof typeof anchorPackages>).filter(
    (name) => anchorProblem(name) !== undefined,
  );
  const problems: Record<string, string> = {};
  if (missing.length === 0 || process.env.SLUICE_BENCH_NO_INSTALL === '1') {
    for (const name of missing) problems[name] = anchorProblem(name) ?? 'not installed';
    return problems;
  }
  mkdirSync(anchorsDir, { recursive: true });
  if (!existsSync(join(anchorsDir, 'package.json'))) {
    writeFileSync(join(anchorsDir, 'package.json'), '{ "name": "sluice-bench-anchors", "private": true }\n');
  }
  const specs = missing.map((name) => `${name}@${anchorPackages[name]}`);
  console.log(
    `bench: installing anchors into ${anchorsDir}: ${specs.join(' ')} (once; isolated-vm compiles a native addon)`,
  );
  for (const spec of specs) {
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', spec], {
        cwd: anchorsDir,
        stdio: 'inherit',
        timeout: 15 * 60_000,
      });
    } catch (error) {
      problems[spec.slice(0, spec.lastIndexOf('@'))] =
        `npm install ${spec} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
    }
  }
  for (const name of missing) {
    const problem = anchorProblem(name);
    if (problem !== undefined) problems[name] ??= problem;
  }
  return problems;
}
