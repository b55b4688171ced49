// The demo's sample tools as a tools module: `sluice run <program> --tools packages/cli/examples/tools.ts`.
import { demoTools } from '@sluice/cli';

export const tools = demoTools();
