import { readFile } from 'node:fs/promises';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { createPolicy, deriveBindings, type Tool } from '@sluice/permissions';

const readText: Tool = {
  name: 'fs.read-text',
  description: 'Reads a UTF-8 text file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async (input) => readFile((input as { path: string }).path, 'utf8'),
};

const policy = createPolicy({
  rules: [{ tool: 'fs.*', effect: 'allow', when: { path: { within: ['/srv/data'] } } }],
});

const runtime = createWorkerThreadCodeRuntime({});
const result = await runtime.run({
  program: `
    try { return await fs.read_text({ path: '/srv/data/../../etc/passwd' }); }
    catch (error) { return error.message; }`,
  bindings: deriveBindings([readText], policy),
});
console.log(result.ok ? result.value : result.failure.message);
// Permission denied: fs.read_text is not allowed: no policy rule allows it (rule 0: argument "path":
// "/srv/data/../../etc/passwd" (it resolves to /etc/passwd) is not within /srv/data). ...
await runtime.dispose();
