import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

const header = [
  'declare const result: Promise<number>;',
  'declare function start(): Promise<void>;',
  'declare function log(): void;',
  'declare const thenable: { then(onFulfilled: () => void, onRejected?: () => void): void };',
  'declare let stored: Promise<number> | undefined;',
];

describe('findUnownedPromises', () => {
  it('flags a dropped promise without a rejection path, and only that', () => {
    const lines = [
      ...header,
      'export async function sample(): Promise<void> {',
      '  void result.then(() => 1);', // 7: flagged
      '  result.then(() => 1);', // 8: flagged
      '  start();', // 9: flagged
      '  void start();', // 10: flagged
      '  void result.finally(() => 1);', // 11: flagged: finally passes the rejection on
      '  (result.then(() => 1));', // 12: flagged
      '  Promise.all([result, start()]);', // 13: flagged
      '  const handler = () => void result.then(log);', // 14: flagged
      '  void result.then(log, log);', // 15: fine
      '  result.then(log, log);', // 16: fine
      '  result.catch(log);', // 17: fine
      '  void result.then(log).catch(log);', // 18: fine
      '  await result;', // 19: fine
      '  stored ??= start().then(() => 1);', // 20: fine: stored, owned by whoever reads it
      '  void thenable;', // 21: flagged: any thenable
      '  handler();', // 22: fine: the handler returns undefined
      '  return start();', // 23: fine: returned to the caller
      '}',
    ];
    expect(check(lines.join('\n'))).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 21]);
  });
});

describe('checkPromises', () => {
  it('finds no promise without a rejection path in the host packages', () => {
    const findings = checkPromises(resolve(import.meta.dirname, '..'));
    expect(findings.map((finding) => `${finding.file}:${finding.line}: ${finding.text}`)).toEqual([]);
  }, 120_000);
});
