import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkPromises, findUnownedPromises } from './check-promises.js';

const directories: string[] = [];

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** Checks one source text, written to a temp file that is removed after the test. */
function check(text: string): number[] {
  const directory = mkdtempSync(join(tmpdir(), 'sluice-check-promises-'));
  directories.push(directory);
  const file = join(directory, 'fixture.ts');
  writeFileSync(file, text);
  return findUnownedPromises([file], directory).map((finding) => finding.line);
}

// The lib and @types/node, parsed once for the file (seconds on a loaded machine) and shared by every check below.
beforeAll(() => {
  check('export {};');
}, 60_000);

const header = [
  'declare const result: Promise<number>;',
  'declare function start(): Promise<void>;',
  'declare function log(): void;',
  'declare const thenable: { then(onFulfilled: () => void, onRejected?: () => void): void };',
  'declare let stored: Promise<number> | undefined;',
  'declare function listen(listener: () => void): void;',
];

describe('findUnownedPromises', () => {
  it('flags a dropped promise without a rejection path, and only that', () => {
    const lines = [
      ...header,
      'export async function sample(): Promise<void> {',
      '  void result.then(() => 1);', // 8: flagged
      '  result.then(() => 1);', // 9: flagged
      '  start();', // 10: flagged
      '  void start();', // 11: flagged
      '  void result.finally(() => 1);', // 12: flagged: finally passes the rejection on
      '  (result.then(() => 1));', // 13: flagged
      '  Promise.all([result, start()]);', // 14: flagged
      '  const handler = () => void result.then(log);', // 15: flagged
      '  void result.then(log, log);', // 16: fine
      '  result.then(log, log);', // 17: fine
      '  result.catch(log);', // 18: fine
      '  void result.then(log).catch(log);', // 19: fine
      '  await result;', // 20: fine
      '  stored ??= start().then(() => 1);', // 21: fine: stored, owned by whoever reads it
      '  void thenable;', // 22: flagged: any thenable
      '  handler();', // 23: fine: the handler returns undefined
      '  setTimeout(async () => { await start(); }, 1);', // 24: flagged: the timer drops the promise
      '  listen(() => start());', // 25: flagged
      '  listen(() => { start().catch(log); });', // 26: fine
      '  await Promise.all([1].map(async () => start()));', // 27: fine: map keeps the promises
      '  // check-promises: owned by the test, which says why', // 28
      '  start();', // 29: fine: waived with a reason
      '  // check-promises: owned', // 30
      '  start();', // 31: flagged: a waiver needs a reason
      '  return start();', // 32: fine: returned to the caller
      '}',
    ];
    expect(check(lines.join('\n'))).toEqual([8, 9, 10, 11, 12, 13, 14, 15, 22, 24, 25, 31]);
  });
});

describe('findUnownedPromises on a module it cannot resolve', () => {
  it('reports the file as not checkable instead of passing it', () => {
    expect(check("import { start } from 'no-such-module';\nstart();\n")).toEqual([1]);
  });
});

describe('checkPromises', () => {
  it('finds no promise without a rejection path in the host packages', () => {
    const findings = checkPromises(resolve(import.meta.dirname, '..'));
    expect(findings.map((finding) => `${finding.file}:${finding.line}: ${finding.text}`)).toEqual([]);
  }, 120_000);
});
