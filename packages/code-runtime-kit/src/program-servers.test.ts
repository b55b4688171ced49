import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { prepareProgram } from './program-prepare.js';
import { serverModule } from './program-servers.js';

/** Prepares a program and runs it in a fresh V8 context whose globals are `globals`, as a provider binds namespaces. */
async function run(source: string, globals: Record<string, unknown>): Promise<unknown> {
  const result = await prepareProgram(source);
  if (!result.ok) return { refused: result.failure.message };
  try {
    return await (new Script(result.program.code, { filename: 'program.js' }).runInNewContext({
      ...globals,
    }) as Promise<unknown>);
  } catch (error) {
    return { threw: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const gdrive = {
  getDocument: async ({ documentId }: { documentId: string }) => ({ content: `text of ${documentId}` }),
  getSheet: async () => [{ Status: 'pending' }, { Status: 'done' }],
};
const globals = { google_drive: gdrive, salesforce: { updateRecord: async (input: unknown) => input } };

describe('serverModule', () => {
  it('reads a server, its index and its tools, and nothing else', () => {
    expect(serverModule('./servers/google-drive')).toEqual({ server: 'google-drive', namespace: 'google_drive' });
    expect(serverModule('./servers/google-drive/')).toEqual({ server: 'google-drive', namespace: 'google_drive' });
    expect(serverModule('./servers/slack/index.ts')).toEqual({ server: 'slack', namespace: 'slack' });
    expect(serverModule('./servers/google-drive/getDocument.ts')).toEqual({
      server: 'google-drive',
      namespace: 'google_drive',
      tool: 'getDocument',
    });
    expect(serverModule('./servers/delete/get-item.js')).toEqual({
      server: 'delete',
      namespace: 'delete_',
      tool: 'get_item',
    });
    // A function keeps a reserved word as its name: `lab.delete(...)`.
    expect(serverModule('./servers/lab/delete.ts')).toEqual({ server: 'lab', namespace: 'lab', tool: 'delete' });
    for (const other of [
      './servers',
      './servers/',
      './servers/a/b/c',
      'servers/a',
      '../servers/a',
      './skills/a',
      'node:fs',
    ]) {
      expect(serverModule(other), other).toBeUndefined();
    }
  });
});

// The first program loads the TypeScript parser: seconds on a loaded machine.
describe('imports of ./servers/<name>', { timeout: 30_000 }, () => {
  it('binds a namespace import to the server namespace, as in the article', async () => {
    const source = `import * as gdrive from './servers/google-drive';
import * as salesforce from './servers/salesforce';

const transcript = (await gdrive.getDocument({ documentId: 'abc123' })).content;
await salesforce.updateRecord({ objectType: 'SalesMeeting', data: { Notes: transcript } });
return transcript;`;
    expect(await run(source, globals)).toBe('text of abc123');
  });

  it('binds named imports from a server, from a tool module, and a default import of a tool module', async () => {
    const source = `import { getDocument, getSheet as sheet } from './servers/google-drive/index.ts';
import fetchDoc from './servers/google-drive/getDocument.ts';
import { type Row, getDocument as again } from './servers/google-drive/getDocument';
const rows: Row[] = await sheet();
return [(await getDocument({ documentId: 'a' })).content, (await fetchDoc({ documentId: 'b' })).content, again === getDocument, rows.length];`;
    expect(await run(source, globals)).toEqual(['text of a', 'text of b', true, 2]);
  });

  it('keeps the lines and columns of the model', async () => {
    const source = `import * as gdrive from './servers/google-drive';
const x: number = 1; null.boom;
return x;`;
    const result = await prepareProgram(source);
    if (!result.ok) throw new Error(result.failure.message);
    expect(result.program.code.split('\n')[2]).toContain('null.boom');
    expect(result.program.code.split('\n')[2]!.indexOf('null.boom')).toBe(source.split('\n')[1]!.indexOf('null.boom'));
  });

  it('calls a main that only server imports stand beside, and reads import() and require()', async () => {
    expect(
      await run(
        `import * as gdrive from './servers/google-drive';
async function main() { return (await gdrive.getDocument({ documentId: 'm' })).content; }`,
        globals,
      ),
    ).toBe('text of m');
    expect(
      await run(
        `const gdrive = await import('./servers/google-drive');
const { updateRecord } = require('./servers/salesforce');
return [(await gdrive.getDocument({ documentId: 'd' })).content, await updateRecord(1)];`,
        globals,
      ),
    ).toEqual(['text of d', 1]);
  });

  it('says which namespace a server that is not there would be, when the import runs', async () => {
    expect(await run(`import * as crm from './servers/hub-spot';\nreturn 1;`, globals)).toEqual({
      threw:
        'ReferenceError: ./servers/hub-spot is not a server this run can call (it would be the namespace hub_spot). Import a namespace the tool list names, as ./servers/<namespace>, or call its tools directly: hub_spot.<tool>(...).',
    });
  });

  it('still refuses every other import with the message it had', async () => {
    for (const source of [
      "import { readFile } from 'node:fs/promises';\nreturn 1;",
      "import { saveSheetAsCsv } from './skills/save-sheet-as-csv';\nreturn 1;",
      "export * from './servers/google-drive';\nreturn 1;",
      "import * as all from './servers';\nreturn 1;",
    ]) {
      const outcome = (await run(source, globals)) as { refused?: string };
      expect(outcome.refused, source).toMatch(/^SyntaxError: Imports are not available: `/);
    }
  });
});
