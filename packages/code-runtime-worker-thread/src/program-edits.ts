// Moved to @sluice/code-runtime-kit, shared with the QuickJS provider; kept for this package's imports.
export { type Insertion, modelColumn } from '@sluice/code-runtime-kit';
