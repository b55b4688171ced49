// Pins what callers of the contract can see. A red pin is a deliberate act: update the literal,
// add a changeset, and say so in the docs.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { HostCallContext, JsonValue } from './index.js';
import * as api from './index.js';

describe('failureKinds', () => {
  it('lists exactly the v1 failure kinds, in order', () => {
    expect(api.failureKinds).toEqual([
      'exception',
      'timeout',
      'memory',
      'abort',
      'substrate-exit',
      'invalid-output',
      'output-limit',
      'protocol',
      'unavailable',
    ]);
  });
});

describe('specificationVersion', () => {
  it('is code-runtime-v1', () => {
    expect(api.specificationVersion).toBe('code-runtime-v1');
  });
});

describe('maxBindingNameLength', () => {
  it('is 64', () => {
    expect(api.maxBindingNameLength).toBe(64);
  });
});

describe('jsonDepthLimit', () => {
  it('is 512', () => {
    expect(api.jsonDepthLimit).toBe(512);
  });
});

describe('index exports', () => {
  it('names exactly these runtime values', () => {
    expect(Object.keys(api).sort()).toEqual([
      'InvalidRequestError',
      'InvalidSettingsError',
      'RuntimeDisposedError',
      'SluiceError',
      'awaitResult',
      'bindingNameProblem',
      'checkJsonValue',
      'conversionProblem',
      'cutUtf8',
      'describeJsonViolation',
      'failureKinds',
      'findJsonViolation',
      'foreignErrorMessage',
      'foreignText',
      'isLosslessJson',
      'isValidBindingName',
      'javascriptReservedWords',
      'jsonDepthLimit',
      'jsonPathOf',
      'maxBindingNameLength',
      'measureJson',
      'normalizeBindings',
      'pythonReservedWords',
      'specificationVersion',
      'toJsonValue',
      'truncateUtf8',
      'utf8ByteLength',
      'validateBindingName',
      'wellFormedText',
    ]);
  });

  it('gives every exported Error class a static isInstance that refuses a plain Error and null', () => {
    const errorClasses = Object.values(api).filter(
      (value): value is typeof api.SluiceError => typeof value === 'function' && value.prototype instanceof Error,
    );
    expect(errorClasses.map((errorClass) => errorClass.name).sort()).toEqual([
      'InvalidRequestError',
      'InvalidSettingsError',
      'RuntimeDisposedError',
      'SluiceError',
    ]);
    for (const errorClass of errorClasses) {
      expect(Object.hasOwn(errorClass, 'isInstance'), errorClass.name).toBe(true);
      expect(errorClass.isInstance(new Error('plain')), errorClass.name).toBe(false);
      expect(errorClass.isInstance(null), errorClass.name).toBe(false);
    }
  });
});

describe('HostCallContext', () => {
  it('has exactly runId, callId, signal, the optional positional arguments and the optional idempotency key', () => {
    expectTypeOf<keyof HostCallContext>().toEqualTypeOf<
      'runId' | 'callId' | 'signal' | 'positional' | 'idempotencyKey'
    >();
    expectTypeOf<HostCallContext['positional']>().toEqualTypeOf<readonly JsonValue[] | undefined>();
    expectTypeOf<HostCallContext['idempotencyKey']>().toEqualTypeOf<string | undefined>();
  });
});
