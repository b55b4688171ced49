// A host that runs one program and exits without disposing its runtime, as a crashed host would.
import { createPythonCodeRuntime } from '../index.js';
import { zygotePids } from './test-runtime.js';

const runtime = createPythonCodeRuntime();
const result = await runtime.run({ program: 'import os\nreturn os.getcwd()' });
const directory = result.ok ? String(result.value).replace(/\/r\d+$/, '') : '';
process.stdout.write(`${JSON.stringify({ directory, zygotes: zygotePids() })}\n`);
process.exit(0);
