import type { CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { afterAll, beforeAll, describe } from 'vitest';
import { integrationCases } from './__fixtures__/integration.js';

const lines = (...source: string[]) => source.join('\n');

describe('deriveBindings with the Python provider', () => {
  let runtime: CodeRuntime;
  beforeAll(() => {
    runtime = createPythonCodeRuntime({});
  });
  afterAll(() => runtime.dispose());

  integrationCases(() => runtime, {
    denied: lines(
      'try:',
      '    await fs.write_file(path="/srv/data/x", text="hi")',
      '    return "written"',
      'except HostCallError as error:',
      '    return str(error)',
    ),
    pathGuard: lines(
      'text = await fs.read_file(path="/srv/data/notes.txt")',
      'try:',
      '    await fs.read_file(path="/srv/data/../secrets.txt")',
      'except HostCallError as error:',
      '    return [text, str(error)]',
    ),
    approval: lines(
      'issue = await github.create_issue(title="First")',
      'try:',
      '    await github.create_issue(title="Second")',
      'except HostCallError as error:',
      '    return [issue["number"], str(error)]',
    ),
    validation: lines(
      'try:',
      '    await tools.search(query=5)',
      'except HostCallError as error:',
      '    return str(error)',
    ),
    policyChange: lines(
      'first = await tools.search({"query": "a"})',
      'try:',
      '    await tools.search(query="b")',
      'except HostCallError as error:',
      '    return [first, str(error)]',
    ),
    uncaught: lines('await fs.write_file(path="/srv/data/x", text="hi")', 'return "written"'),
  });
});
