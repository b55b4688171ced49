import type { CodeRuntimeLanguage } from '@sluice/code-runtime';
import { pythonPrograms } from './programs-python.js';
import { typescriptPrograms } from './programs-typescript.js';

/** The name of one program in the catalogue, the same in every language. */
export type ConformanceProgramName = keyof typeof typescriptPrograms;

/** One language's programs, by name. */
export type ConformancePrograms = Readonly<Record<ConformanceProgramName, string>>;

/**
 * Every program the suite runs, by language and then by name: `conformancePrograms.python.throwError`.
 * Programs of the same name do the same thing in each language, so providers and docs can reuse them.
 */
export const conformancePrograms: Readonly<Record<CodeRuntimeLanguage, ConformancePrograms>> = Object.freeze({
  typescript: Object.freeze(typescriptPrograms),
  python: Object.freeze(pythonPrograms),
});
