export {
  type CliIo,
  type CliStream,
  exitInterrupted,
  exitPaused,
  exitProgramFailure,
  exitSuccess,
  exitUsageError,
} from './cli-io.js';
export { runCli } from './cli-main.js';
export { collectTools, loadToolsModule } from './cli-tools-module.js';
export { type DemoOptions, runDemo } from './demo/demo-run.js';
export { type DemoToolsOptions, demoPolicy, demoTools } from './demo/demo-tools.js';
