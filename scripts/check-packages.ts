// Enforces the package conventions of STYLE.md, so they are checked rather than remembered.
// `tsx scripts/check-packages.ts [root]` prints one line per problem and exits 1 when there are any.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One broken convention: where, and what is wrong. */
export interface PackageProblem {
  readonly packageDir: string;
  readonly problem: string;
}

interface PackageJson {
  name?: string;
  private?: boolean;
  type?: string;
  sideEffects?: boolean;
  exports?: Record<string, unknown>;
  files?: string[];
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}

const buildScript = 'tsx ../../scripts/build-package.ts';
const contract = 'code-runtime';
/** Packages that implement the contract: every one must run the conformance suite. */
const isProvider = (folder: string) =>
  folder.startsWith('code-runtime-') && !['code-runtime-conformance', 'code-runtime-kit'].includes(folder);
/** What a provider may not depend on: other providers, the registry, permissions. */
const forbiddenForProviders = (folder: string, dependency: string) =>
  dependency === '@sluice/context' ||
  dependency === '@sluice/permissions' ||
  (isProvider(dependency.replace('@sluice/', '')) && dependency !== `@sluice/${folder}`);

/** Every convention problem in the workspace at `root`. Imports each package's built `dist/index.js` to inspect its error classes. */
export async function checkPackages(root: string): Promise<PackageProblem[]> {
  const problems: PackageProblem[] = [];
  const packagesDir = join(root, 'packages');
  for (const folder of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, folder);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const report = (problem: string) => problems.push({ packageDir: relative(root, dir), problem });
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    checkCommon(dir, folder, manifest, report);
    if (manifest.private) continue;
    checkPublished(dir, manifest, report);
    if (folder === contract) checkContract(dir, manifest, report);
    if (isProvider(folder)) checkProvider(dir, folder, manifest, report);
    await checkErrorClasses(dir, report);
  }
  return problems;
}

type Report = (problem: string) => void;

function checkCommon(dir: string, folder: string, manifest: PackageJson, report: Report): void {
  if (manifest.name !== `@sluice/${folder}`)
    report(
      `package.json name must be "@sluice/${folder}" (folder = unscoped name), got ${JSON.stringify(manifest.name)}`,
    );
  if (!existsSync(join(dir, 'README.md'))) report('README.md is missing');
}

function checkPublished(dir: string, manifest: PackageJson, report: Report): void {
  if (manifest.type !== 'module') report('package.json must have "type": "module" (ESM only)');
  if (manifest.sideEffects !== false) report('package.json must have "sideEffects": false');
  const exportsMap = manifest.exports ?? {};
  const main = exportsMap['.'];
  if (typeof main !== 'object' || main === null) report('package.json exports must have a "." entry with conditions');
  else if (Object.keys(main)[0] !== 'types') report('package.json exports["."] must list "types" first');
  if (exportsMap['./package.json'] !== './package.json') report('package.json exports must export "./package.json"');
  for (const key of Object.keys(exportsMap)) {
    if (key.startsWith('./src')) report(`package.json exports must not expose source files (${key})`);
  }
  if (!Array.isArray(manifest.files) || !manifest.files.includes('dist'))
    report('package.json "files" must list "dist"');
  if (!existsSync(join(dir, 'CHANGELOG.md'))) report('CHANGELOG.md is missing');
  if (manifest.scripts?.build !== buildScript)
    report(`package.json scripts.build must be "${buildScript}" (one build recipe for every package)`);
  const tsconfigPath = join(dir, 'tsconfig.json');
  if (!existsSync(tsconfigPath) || !readFileSync(tsconfigPath, 'utf8').includes('"@sluice/tsconfig/base.json"')) {
    report('tsconfig.json must extend "@sluice/tsconfig/base.json"');
  }
  const indexPath = join(dir, 'src', 'index.ts');
  if (!existsSync(indexPath)) report('src/index.ts is missing');
  else if (/^\s*export\s+\*/m.test(readFileSync(indexPath, 'utf8')))
    report('src/index.ts must use explicit named exports, not "export *"');
}

function checkContract(dir: string, manifest: PackageJson, report: Report): void {
  if (Object.keys(manifest.dependencies ?? {}).length > 0) report('the contract must have no runtime dependencies');
  for (const file of sourceFiles(join(dir, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (/from\s+['"]node:|import\(\s*['"]node:|require\(\s*['"]node:/.test(text)) {
      report(`the contract must not import node: modules (${relative(dir, file)})`);
    }
  }
}

function checkProvider(dir: string, folder: string, manifest: PackageJson, report: Report): void {
  const conformance = join(dir, 'src', 'conformance.test.ts');
  if (!existsSync(conformance) || !readFileSync(conformance, 'utf8').includes('describeCodeRuntimeConformance(')) {
    report('a provider must run the conformance suite in src/conformance.test.ts (describeCodeRuntimeConformance)');
  }
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (forbiddenForProviders(folder, dependency)) report(`a provider must not depend on ${dependency}`);
  }
}

async function checkErrorClasses(dir: string, report: Report): Promise<void> {
  const entry = join(dir, 'dist', 'index.js');
  if (!existsSync(entry)) {
    report('dist/index.js is missing: build the package before checking it');
    return;
  }
  const api = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  for (const [name, value] of Object.entries(api)) {
    if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
    if (!Object.hasOwn(value, 'isInstance') || typeof (value as { isInstance?: unknown }).isInstance !== 'function') {
      report(`exported error class ${name} must define its own static isInstance()`);
    }
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.argv[2] ?? join(import.meta.dirname, '..');
  const problems = await checkPackages(root);
  for (const { packageDir, problem } of problems) console.error(`${packageDir}: ${problem}`);
  if (problems.length > 0) {
    console.error(`check-packages: ${problems.length} convention problem(s); see STYLE.md.`);
    process.exit(1);
  }
  console.log('check-packages: every package follows the conventions.');
}
