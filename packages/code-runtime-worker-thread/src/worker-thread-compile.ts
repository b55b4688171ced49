// Moved to @sluice/code-runtime-kit (program-compile.ts), shared with the QuickJS provider; kept for this package's imports.
export {
  type CompiledProgram,
  type CompileResult,
  describeException,
  mapProgramPositions,
  ProgramCompiler,
  type ThrownDescription,
} from '@sluice/code-runtime-kit';
