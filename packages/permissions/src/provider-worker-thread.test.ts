import type { CodeRuntime } from '@sluice/code-runtime';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterAll, beforeAll, describe } from 'vitest';
import { integrationCases } from './__fixtures__/integration.js';

const lines = (...source: string[]) => source.join('\n');

describe('deriveBindings with the worker-thread provider', () => {
  let runtime: CodeRuntime;
  beforeAll(() => {
    runtime = createWorkerThreadCodeRuntime({});
  });
  afterAll(() => runtime.dispose());

  integrationCases(() => runtime, {
    denied: lines(
      'try {',
      "  await fs.write_file({ path: '/srv/data/x', text: 'hi' });",
      "  return 'written';",
      '} catch (error) {',
      '  return error.message;',
      '}',
    ),
    pathGuard: lines(
      "const text = await fs.read_file({ path: '/srv/data/notes.txt' });",
      'try {',
      "  await fs.read_file({ path: '/srv/data/../secrets.txt' });",
      '} catch (error) {',
      '  return [text, error.message];',
      '}',
    ),
    approval: lines(
      "const issue = await github.create_issue({ title: 'First' });",
      'try {',
      "  await github.create_issue({ title: 'Second' });",
      '} catch (error) {',
      '  return [issue.number, error.message];',
      '}',
    ),
    validation: lines(
      'try {',
      '  await tools.search({ query: 5 });',
      '} catch (error) {',
      '  return error.message;',
      '}',
    ),
    policyChange: lines(
      "const first = await tools.search({ query: 'a' });",
      'try {',
      "  await tools.search({ query: 'b' });",
      '} catch (error) {',
      '  return [first, error.message];',
      '}',
    ),
    uncaught: lines("await fs.write_file({ path: '/srv/data/x', text: 'hi' });", "return 'written';"),
  });
});
