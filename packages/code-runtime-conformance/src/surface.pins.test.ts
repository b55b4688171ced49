import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@sluice/code-runtime-conformance surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(api).sort()).toEqual([
      'builtinCaseHelpers',
      'builtinCases',
      'conformanceAcquireBudgets',
      'conformanceBudgets',
      'conformanceColdStartBudgets',
      'conformancePrograms',
      'conformanceQueueBudgets',
      'conformanceTimeoutBudgets',
      'describeCodeRuntimeConformance',
    ]);
  });

  it('passes these budgets to create', () => {
    expect(api.conformanceBudgets).toEqual({
      wallTimeMs: 20_000,
      logBytes: 4_096,
      valueBytes: 65_536,
      memoryBytes: 134_217_728,
      poolSize: 4,
      acquireTimeoutMs: 60_000,
    });
    expect(api.conformanceTimeoutBudgets).toEqual({ ...api.conformanceBudgets, wallTimeMs: 3_000 });
    expect(api.conformanceQueueBudgets).toEqual({ ...api.conformanceBudgets, wallTimeMs: 4_000, poolSize: 1 });
    expect(api.conformanceAcquireBudgets).toEqual({ ...api.conformanceBudgets, poolSize: 1, acquireTimeoutMs: 1_500 });
    expect(api.conformanceColdStartBudgets).toEqual({ ...api.conformanceBudgets, wallTimeMs: 1_000 });
    expect(Object.isFrozen(api.conformanceBudgets)).toBe(true);
  });

  it('has the same programs, by these names, in every language', () => {
    const names = [
      'boundaryValues',
      'callFault',
      'callNotGranted',
      'callThenReturn',
      'callWithFunction',
      'catchHostError',
      'catchHostValue',
      'clockAndRandom',
      'concurrentIdentity',
      'deepArgument',
      'deepValue',
      'deterministicRun',
      'eventsInOrder',
      'fireAndForget',
      'fireFault',
      'hostRoundTrip',
      'infiniteLoop',
      'logFlood',
      'logLines',
      'longLine',
      'loopAfterAwait',
      'memoryBomb',
      'oversizedValue',
      'pollute',
      'positionalArguments',
      'probe',
      'returnBudgetGenerator',
      'returnCycle',
      'returnEndless',
      'returnExotic',
      'returnFunction',
      'returnHostValue',
      'returnNaN',
      'returnNothing',
      'returnNull',
      'returnValue',
      'syntaxError',
      'throwError',
      'waitForHost',
    ];
    expect(Object.keys(api.conformancePrograms).sort()).toEqual(['python', 'typescript']);
    expect(Object.keys(api.conformancePrograms.typescript).sort()).toEqual(names);
    expect(Object.keys(api.conformancePrograms.python).sort()).toEqual(names);
  });
});

describe('describeCodeRuntimeConformance', () => {
  it('throws TypeError for a language it has no programs for, or a create that is not a function', () => {
    const create = () => {
      throw new Error('never called');
    };
    expect(() => api.describeCodeRuntimeConformance({ name: 'x', language: 'ruby' as never, create })).toThrow(
      TypeError,
    );
    expect(() =>
      api.describeCodeRuntimeConformance({ name: 'x', language: 'python', create: undefined as never }),
    ).toThrow(TypeError);
  });
});
