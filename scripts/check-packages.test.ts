import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPackages } from './check-packages.js';

const workspaces: string[] = [];

afterEach(() => {
  for (const dir of workspaces.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'sluice-check-packages-'));
  workspaces.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function goodPackage(folder: string, extra: Record<string, unknown> = {}): Record<string, string> {
  const manifest = {
    name: `@sluice/${folder}`,
    type: 'module',
    sideEffects: false,
    exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    files: ['dist', 'README.md', 'CHANGELOG.md'],
    scripts: { build: 'tsx ../../scripts/build-package.ts' },
    ...extra,
  };
  return {
    [`packages/${folder}/package.json`]: JSON.stringify(manifest),
    [`packages/${folder}/README.md`]: '# x\n',
    [`packages/${folder}/CHANGELOG.md`]: '# x\n',
    [`packages/${folder}/tsconfig.json`]: '{ "extends": "@sluice/tsconfig/base.json" }',
    [`packages/${folder}/src/index.ts`]: "export { a } from './a.js';\n",
    [`packages/${folder}/dist/index.js`]: 'export const a = 1;\n',
  };
}

describe('checkPackages', () => {
  it('finds nothing wrong with a package that follows the conventions', async () => {
    const root = workspace(goodPackage('code-runtime'));
    expect(await checkPackages(root)).toEqual([]);
  });

  it('reports a contract with dependencies or node: imports', async () => {
    const root = workspace({
      ...goodPackage('code-runtime', { dependencies: { zod: '^3' } }),
      'packages/code-runtime/src/clock.ts': "import { setTimeout } from 'node:timers';\n",
    });
    const problems = (await checkPackages(root)).map((entry) => entry.problem);
    expect(problems).toContain('the contract must have no runtime dependencies');
    expect(problems).toContain('the contract must not import node: modules (src/clock.ts)');
  });

  it('reports a provider without the conformance suite, or depending on another provider', async () => {
    const root = workspace(
      goodPackage('code-runtime-fake', { dependencies: { '@sluice/code-runtime-python': 'workspace:^' } }),
    );
    const problems = (await checkPackages(root)).map((entry) => entry.problem);
    expect(problems).toEqual([
      'a provider must run the conformance suite in src/conformance.test.ts (describeCodeRuntimeConformance)',
      'a provider must not depend on @sluice/code-runtime-python',
    ]);
  });

  it('reports an exported error class without its own isInstance', async () => {
    const root = workspace({
      ...goodPackage('widgets'),
      'packages/widgets/dist/index.js': [
        'export class BaseError extends Error { static isInstance() { return true; } }',
        'export class LeakyError extends BaseError {}',
      ].join('\n'),
    });
    expect(await checkPackages(root)).toEqual([
      {
        packageDir: 'packages/widgets',
        problem: 'exported error class LeakyError must define its own static isInstance()',
      },
    ]);
  });

  it('reports a broken manifest: exports order, src exports, export *, missing files', async () => {
    const files = goodPackage('widgets', {
      exports: { '.': { default: './dist/index.js', types: './dist/index.d.ts' }, './src/*': './src/*' },
      sideEffects: true,
    });
    delete files['packages/widgets/CHANGELOG.md'];
    files['packages/widgets/src/index.ts'] = "export * from './a.js';\n";
    const problems = (await checkPackages(workspace(files))).map((entry) => entry.problem);
    expect(problems).toEqual([
      'package.json must have "sideEffects": false',
      'package.json exports["."] must list "types" first',
      'package.json exports must export "./package.json"',
      'package.json exports must not expose source files (./src/*)',
      'CHANGELOG.md is missing',
      'src/index.ts must use explicit named exports, not "export *"',
    ]);
  });
});
