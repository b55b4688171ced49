// Pins what callers of the registry can see. A red pin is a deliberate act: update the literal,
// add a changeset, and say so in the docs.
import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('index exports', () => {
  it('names exactly these runtime values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CapabilityConflictError',
      'CapabilityMissingError',
      'ContextDisposedError',
      'InvalidCapabilityError',
      'createContext',
    ]);
  });
});

describe('createContext', () => {
  it('names these packages for a missing codeRuntime', () => {
    const ctx = api.createContext();
    let install: readonly string[] = [];
    try {
      void ctx.codeRuntime;
    } catch (error) {
      if (api.CapabilityMissingError.isInstance(error)) install = error.install;
    }
    expect(install).toEqual([
      '@sluice/code-runtime-worker-thread',
      '@sluice/code-runtime-quickjs',
      '@sluice/code-runtime-python',
    ]);
  });
});
