import type { CodeRunEvent, CodeRuntime } from '@sluice/code-runtime';
import { createPythonCodeRuntime } from '@sluice/code-runtime-python';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import type { PolicyDefinition, Tool } from '@sluice/permissions';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunCodeTool } from './run-code-tool.js';

// What the model reads back, end to end on both providers: failed calls of an ok run with their
// reasons, and text that is well-formed Unicode (a lone surrogate makes model APIs refuse a request).

const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const policy: PolicyDefinition = { default: 'allow', rules: [] };

const tools: Tool[] = [
  {
    name: 'posts.publish',
    description: 'Publish a post; refuses titles it cannot read.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
    execute: (input) => {
      const { title } = input as { title: string };
      // The tool's own error carries the half of a pair the program sent.
      if (title.length < 10) throw new Error(`title too short: ${title}`);
      return { published: title };
    },
  },
  {
    name: 'posts.archive',
    description: 'Archive a post.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    execute: () => {
      throw new Error('Posts are locked while the test runs.');
    },
  },
];

const runtimes: Record<'typescript' | 'python', CodeRuntime> = {
  typescript: createWorkerThreadCodeRuntime({ wallTimeMs: 20_000 }),
  python: createPythonCodeRuntime({ wallTimeMs: 20_000 }),
};
afterAll(() => Promise.all(Object.values(runtimes).map((runtime) => runtime.dispose())));

// The first run of each provider starts its process; on a loaded machine that alone can take seconds.
const startup = 30_000;

async function runOn(language: 'typescript' | 'python', code: string) {
  const runCode = createRunCodeTool({ context: { codeRuntime: runtimes[language] }, tools, policy });
  const events: CodeRunEvent[] = [];
  const outcome = await runCode.run({ code }, { onEvent: (event) => events.push(event) });
  const logEvents = events.flatMap((event) => (event.type === 'log' ? [event.text] : []));
  return { ...outcome, text: outcome.rendered.text, logEvents };
}

const programs = {
  typescript: {
    caught: [
      "const short = 'Launch 🚀 party'.slice(0, 8);",
      'console.log(short);',
      'const outcomes = [];',
      "for (const id of ['a', 'b', 'c']) {",
      '  try { await posts.archive({ id }); } catch { outcomes.push(id); }',
      '}',
      'try { await posts.publish({ title: short }); } catch { outcomes.push(short); }',
      'return outcomes;',
    ].join('\n'),
    thrown: "throw new Error('Launch 🚀 party'.slice(0, 8));",
  },
  python: {
    caught: [
      'short = "Launch \\ud83d"',
      'print(short)',
      'outcomes = []',
      'for id in ["a", "b", "c"]:',
      '    try:',
      '        await posts.archive(id=id)',
      '    except HostCallError:',
      '        outcomes.append(id)',
      'try:',
      '    await posts.publish(title=short)',
      'except HostCallError:',
      '    outcomes.append(short)',
      'return outcomes',
    ].join('\n'),
    thrown: 'raise ValueError("Launch \\ud83d")',
  },
};

describe.each(['typescript', 'python'] as const)('run_code text on the %s runtime', (language) => {
  it(
    'lists the failed calls of an ok run with name and reason, grouping alike ones, all well-formed',
    async () => {
      const { result, text, logEvents } = await runOn(language, programs[language].caught);
      expect(result?.ok).toBe(true);
      expect(text).toMatch(/^\[run_code\] ok · .* · 4 host calls · 4 failed · 1 log line\n/);
      expect(text).toContain('--- failed host calls (4 of 4; the run still ended ok) ---\n');
      expect(text).toMatch(/\nc1, c2, c3 posts\.archive \(3 calls\): .*Posts are locked while the test runs\.\n/);
      expect(text).toContain('\nc4 posts.publish: title too short: Launch \uFFFD\n');
      // The value keeps the half pair as a JSON escape, which is plain ASCII in the text.
      expect(text).toContain('"Launch \\ud83d"');
      expect(text).not.toMatch(lone);
      expect(result?.logs.map((entry) => entry.text).join('\n')).not.toMatch(lone);
      expect(logEvents.join('\n')).not.toMatch(lone);
    },
    startup,
  );

  it(
    'renders a thrown message with a lone surrogate as U+FFFD',
    async () => {
      const { result, text } = await runOn(language, programs[language].thrown);
      expect(result?.ok).toBe(false);
      expect(text).toMatch(/\nmessage: \w*Error: Launch \uFFFD/);
      expect(text).not.toMatch(lone);
    },
    startup,
  );
});

describe('run_code log lines with a lone surrogate', () => {
  it(
    'arrive as U+FFFD from a TypeScript program, in the result and as they stream',
    async () => {
      const { result, logEvents } = await runOn('typescript', "console.log('Launch 🚀 party'.slice(0, 8));");
      expect(result?.logs).toEqual([{ level: 'log', text: 'Launch \uFFFD' }]);
      expect(logEvents).toEqual(['Launch \uFFFD']);
    },
    startup,
  );

  it(
    'arrive as a backslash escape from a Python program, as its UTF-8 stdout writes them',
    async () => {
      const { result, logEvents } = await runOn('python', 'print("Launch \\ud83d")');
      expect(result?.logs).toEqual([{ level: 'log', text: 'Launch \\ud83d' }]);
      expect(logEvents).toEqual(['Launch \\ud83d']);
    },
    startup,
  );
});

describe('run_code input it cannot run', () => {
  it('answers with well-formed text when a field name the model sent holds half of a surrogate pair', async () => {
    const runCode = createRunCodeTool({ context: { codeRuntime: runtimes.typescript }, tools, policy });
    const text = await runCode.execute({ code: 'return 1', 'note\uD83D': 'x' });
    expect(text).toBe('[run_code] not run: unknown input field note\uFFFD; send only code and description.\n');
  });
});
