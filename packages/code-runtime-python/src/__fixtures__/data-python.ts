import { spawnSync } from 'node:child_process';

/** The modules the data-analysis tests need. */
export const dataModules = ['numpy', 'pandas', 'matplotlib'] as const;

/**
 * An interpreter that imports numpy, pandas and matplotlib: `SLUICE_DATA_PYTHON`, else Debian's
 * `/usr/bin/python3` (where `node scripts/install-test-packages.mjs` puts them), else `python3` on `PATH`
 * (often a pyenv interpreter without them). `{ skip }` says why there is none, for the tests to print.
 */
export function findDataPython(): { readonly executable: string } | { readonly skip: string } {
  const candidates = [process.env.SLUICE_DATA_PYTHON, '/usr/bin/python3', 'python3'].filter(
    (candidate): candidate is string => candidate !== undefined && candidate !== '',
  );
  for (const executable of candidates) {
    const result = spawnSync(executable, ['-c', `import ${dataModules.join(', ')}`], { stdio: 'ignore', timeout: 60_000 });
    if (result.status === 0) return { executable };
  }
  return {
    skip: `none of ${candidates.join(', ')} imports ${dataModules.join(', ')}; run \`node scripts/install-test-packages.mjs\` as root on Debian (or set SLUICE_DATA_PYTHON)`,
  };
}
