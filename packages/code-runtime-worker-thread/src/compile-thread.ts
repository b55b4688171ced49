// Moved to @sluice/code-runtime-kit, shared with the QuickJS provider; kept for this package's imports.
export { compileInThread, compileThreadActivity, terminateCompileThread } from '@sluice/code-runtime-kit';
