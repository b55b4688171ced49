import { describe, expect, it } from 'vitest';
import { compileThreadActivity } from './compile-thread.js';
import { ProgramCompiler } from './program-compile.js';

describe('ProgramCompiler', () => {
  it('prepares plain JavaScript without the compile thread, and starts it for a program that needs the parser', async () => {
    const compiler = new ProgramCompiler();
    await compiler.warm(['return 6*7', 'const r = await tools.echo({ x: 1 });\nreturn r.x']);
    expect(await compiler.compile('return 6*7')).toMatchObject({ ok: true, program: { lines: 1 } });
    expect(compileThreadActivity().running).toBe(false);
    await compiler.warm(['return 6*7', 'const x: number = 1;\nreturn x']);
    expect(compileThreadActivity().running).toBe(true);
    expect(await compiler.compile('const x: number = 1;\nreturn x')).toMatchObject({ ok: true });
  }, 60_000);
});
