// The one build recipe every package uses: esbuild bundles each entry to ESM in dist/ (workspace
// and npm dependencies stay external), and the TypeScript compiler writes the declarations.
// Run from a package folder: `tsx ../../scripts/build-package.ts`.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';

interface PackageJson {
  name: string;
  /**
   * `entries`: the files bundled (default `src/index.ts`). `splitting`: shared code and what an
   * entry imports with `import()` go to chunks of their own, loaded when first imported (the CLI,
   * whose commands start their substrate before they load the rest). `afterBuild`: scripts of the
   * package run with tsx, in order, once dist/ is written, to add what is not bundled code (the run
   * store's pre-initialised PGlite database).
   */
  sluice?: { entries?: string[]; splitting?: boolean; afterBuild?: string[] };
}

const packageDir = process.cwd();
const packageJson = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageJson;
const entries = packageJson.sluice?.entries ?? ['src/index.ts'];
const outDir = join(packageDir, 'dist');

rmSync(outDir, { recursive: true, force: true });

await build({
  entryPoints: entries.map((entry) => join(packageDir, entry)),
  outdir: outDir,
  outbase: join(packageDir, 'src'),
  bundle: true,
  splitting: packageJson.sluice?.splitting === true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [guestBundles()],
});

emitDeclarations();

for (const script of packageJson.sluice?.afterBuild ?? []) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(packageDir, script)], {
    cwd: packageDir,
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`${packageJson.name}: ${script} failed (exit ${result.status ?? result.signal})`);
    process.exit(1);
  }
}

/**
 * `import source from 'guest-bundle:./file.ts'`: the file bundled on its own with its npm
 * dependencies into one script without imports (an IIFE, ES2020, minified with names kept), and
 * imported as that script's text, for a provider to evaluate inside its guest engine.
 */
function guestBundles(): Plugin {
  const prefix = 'guest-bundle:';
  return {
    name: 'guest-bundle',
    setup(builder) {
      builder.onResolve({ filter: /^guest-bundle:/ }, (args) => ({
        path: resolve(args.resolveDir, args.path.slice(prefix.length)),
        namespace: 'guest-bundle',
      }));
      builder.onLoad({ filter: /.*/, namespace: 'guest-bundle' }, async (args) => {
        const bundled = await build({
          entryPoints: [args.path],
          absWorkingDir: dirname(args.path),
          bundle: true,
          write: false,
          format: 'iife',
          platform: 'neutral',
          mainFields: ['main'],
          target: 'es2020',
          minify: true,
          keepNames: true,
          legalComments: 'none',
          metafile: true,
          logLevel: 'warning',
        });
        const text = bundled.outputFiles[0]?.text ?? '';
        const inputs = Object.keys(bundled.metafile.inputs).map((input) => resolve(dirname(args.path), input));
        return { contents: `export default ${JSON.stringify(text)};`, loader: 'js', watchFiles: inputs };
      });
    },
  };
}

function emitDeclarations(): void {
  const configPath = join(packageDir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) fail([config.error]);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, packageDir);
  const rootNames = sourceFiles(join(packageDir, 'src'));
  const program = ts.createProgram(rootNames, {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: join(packageDir, 'src'),
    outDir,
  });
  const result = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) fail(diagnostics);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter(
      (file) =>
        file.endsWith('.ts') && !/\.(test|test-d|test-helper)\.ts$/.test(file) && !file.includes('__fixtures__'),
    )
    .map((file) => join(dir, file));
}

function fail(diagnostics: readonly ts.Diagnostic[]): never {
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (fileName) => relative(packageDir, fileName),
    getCurrentDirectory: () => packageDir,
    getNewLine: () => '\n',
  };
  console.error(`${packageJson.name}: declaration build failed\n${ts.formatDiagnostics(diagnostics, host)}`);
  process.exit(1);
}
