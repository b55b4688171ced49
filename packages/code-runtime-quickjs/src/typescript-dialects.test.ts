import type { Bindings, CodeRuntime, HostFunction } from '@sluice/code-runtime';
import { createWorkerThreadCodeRuntime } from '@sluice/code-runtime-worker-thread';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// The dialects of the public code-mode peers on both TypeScript providers: `codemode.<tool>(…)`, as
// Cloudflare's code mode calls tools, and `import * as gdrive from './servers/google-drive'`, as
// Anthropic's "code execution with MCP" does. The same programs, values and calls on each.

const runtimes: Record<string, CodeRuntime> = {
  quickjs: createQuickJsCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 }),
  'worker-thread': createWorkerThreadCodeRuntime({ poolSize: 1, wallTimeMs: 20_000 }),
};
afterAll(() => Promise.all(Object.values(runtimes).map((runtime) => runtime.dispose())));

const echo: HostFunction = (input) => input;
const named =
  (label: string): HostFunction =>
  () =>
    label;

const bindings: Bindings = {
  tools: { getWeather: echo, sendEmail: named('tools.sendEmail'), search: named('tools.search') },
  github: { create_issue: named('github.create_issue'), search: named('github.search') },
  search: { web: named('search.web') },
};

for (const [provider, runtime] of Object.entries(runtimes)) {
  // The first run on each provider starts it and the TypeScript parser: seconds on a loaded machine.
  describe(`codemode on ${provider}`, { timeout: 30_000 }, () => {
    it('calls a tool by its own name, and records the call under its namespace', async () => {
      const result = await runtime.run({
        program: `async () => {
  const weather = await codemode.getWeather({ location: 'London' });
  return [weather, await codemode.sendEmail({ to: 'a@b' }), await codemode.create_issue({ title: 't' })];
}`,
        bindings,
      });
      expect(result).toMatchObject({
        ok: true,
        value: [{ location: 'London' }, 'tools.sendEmail', 'github.create_issue'],
      });
      expect(result.calls.map((call) => `${call.namespace}.${call.name}`)).toEqual([
        'tools.getWeather',
        'tools.sendEmail',
        'github.create_issue',
      ]);
    });

    it('reads flat <namespace>_<name> and <namespace>__<name> spellings, and a namespace', async () => {
      const result = await runtime.run({
        program:
          'return [await codemode.search_web({}), await codemode.github__search({}), await codemode.github.search({}), await codemode.tools_search({})];',
        bindings,
      });
      expect(result).toMatchObject({
        ok: true,
        value: ['search.web', 'github.search', 'github.search', 'tools.search'],
      });
    });

    it('lists the tools by their own names and is the same function as the namespace has', async () => {
      const result = await runtime.run({
        program:
          'return [Object.keys(codemode).sort(), codemode.getWeather === tools.getWeather, "create_issue" in codemode, "github_create_issue" in codemode];',
        bindings,
      });
      expect(result).toMatchObject({
        ok: true,
        value: [['create_issue', 'getWeather', 'sendEmail', 'web'], true, true, true],
      });
    });

    it('names every reading of a name granted in more than one namespace', async () => {
      const result = await runtime.run({ program: 'return await codemode.search({});', bindings });
      expect(result.ok ? '' : result.failure.message).toContain(
        'ReferenceError: codemode.search is granted in more than one namespace; did you mean tools.search or github.search?',
      );
      expect(result.calls).toEqual([]);
    });

    it('refuses an unknown name on the host side, recording it and listing what is available', async () => {
      const result = await runtime.run({
        program: 'try { await codemode.nope({}); } catch (error) { return String(error.message); }',
        bindings,
      });
      expect(result).toMatchObject({ ok: true, value: expect.stringContaining('codemode.nope is not available') });
      expect(result.ok ? result.value : '').toContain('tools.getWeather');
      expect(result.calls).toMatchObject([{ namespace: 'codemode', name: 'nope', ok: false }]);
    });

    it('leaves a namespace called codemode, and a run without bindings, as they are', async () => {
      const own = await runtime.run({
        program: 'return [await codemode.run({}), typeof codemode.getWeather];',
        bindings: { codemode: { run: named('codemode.run') }, tools: { getWeather: echo } },
      });
      expect(own).toMatchObject({ ok: true, value: ['codemode.run', 'function'] });
      const none = await runtime.run({ program: 'return typeof codemode;' });
      expect(none).toMatchObject({ ok: true, value: 'undefined' });
    });

    it('lets the program declare its own codemode', async () => {
      const result = await runtime.run({
        program: 'const codemode = { getWeather: () => "mine" }; return codemode.getWeather();',
        bindings,
      });
      expect(result).toMatchObject({ ok: true, value: 'mine' });
    });
  });
}

for (const [provider, runtime] of Object.entries(runtimes)) {
  describe(`./servers imports on ${provider}`, { timeout: 30_000 }, () => {
    const servers: Bindings = {
      google_drive: { getDocument: named('a transcript') },
      salesforce: { updateRecord: echo },
    };

    it('binds ./servers/<name> to the namespace of that server, and a tool module to its tool', async () => {
      const result = await runtime.run({
        program: `import * as gdrive from './servers/google-drive';
import { updateRecord } from './servers/salesforce/updateRecord.ts';

const transcript = await gdrive.getDocument({ documentId: 'abc123' });
await updateRecord({ objectType: 'SalesMeeting', recordId: '00Q5f000001abcXYZ', data: { Notes: transcript } });
console.log('updated');`,
        bindings: servers,
      });
      expect(result).toMatchObject({ ok: true, logs: [{ text: 'updated' }] });
      expect(result.calls.map((call) => `${call.namespace}.${call.name}`)).toEqual([
        'google_drive.getDocument',
        'salesforce.updateRecord',
      ]);
    });

    it('names the namespace a missing server would be, at the import, and leaves other imports refused', async () => {
      const missing = await runtime.run({
        program: "import * as slack from './servers/slack';\nreturn 1;",
        bindings: servers,
      });
      expect(missing.ok ? '' : missing.failure.message).toContain(
        'ReferenceError: ./servers/slack is not a server this run can call (it would be the namespace slack).',
      );
      const other = await runtime.run({ program: "import * as fs from 'node:fs';\nreturn 1;", bindings: servers });
      expect(other.ok ? '' : other.failure.message).toContain('Imports are not available');
    });
  });
}
