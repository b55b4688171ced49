import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsCodeRuntime } from './index.js';

// QuickJS records a position only at calls: an error at a property read or an undefined name is
// placed by searching the program for the name, never at the last call before it.
const runtime = createQuickJsCodeRuntime({ poolSize: 1 });
afterAll(() => runtime.dispose());

async function failure(program: string) {
  const result = await runtime.run({ program });
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.failure as { kind: string; message: string; line?: number; column?: number };
}

describe('QuickJS error positions', () => {
  it('places a property read of undefined at the read, not at the call before it', async () => {
    expect(
      await failure(
        'const orders = [1, 2];\nconsole.log("looking");\nconst missing = orders[99];\nconst id = missing.id;',
      ),
    ).toMatchObject({
      message: "TypeError: cannot read property 'id' of undefined (line 4, column 19)",
      line: 4,
      column: 19,
    });
    expect(
      await failure('const user = { address: null };\n\nconst city = user.address?.city ?? user.address.city;'),
    ).toMatchObject({
      line: 3,
    });
  });

  it('places an undefined name, which QuickJS gives no position at all', async () => {
    expect(await failure('const total = 1;\nreturn totl + 1;')).toMatchObject({
      message: 'ReferenceError: totl is not defined (line 2, column 8)',
      line: 2,
    });
  });

  it('names the lines when the name occurs several times, and gives no line it cannot be sure of', async () => {
    // An object literal's key is not a read.
    const found = await failure('const a = { id: 1 };\nconst b = undefined;\nconst x = a.id;\nconst y = b.id;');
    expect(found.message).toBe("TypeError: cannot read property 'id' of undefined (at one of lines 3, 4)");
    expect(found.line).toBeUndefined();
  });
});
