import { InvalidRequestError, SluiceError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { CapabilityConflictError } from './capability-conflict-error.js';
import { CapabilityMissingError } from './capability-missing-error.js';
import { ContextDisposedError } from './context-disposed-error.js';
import { InvalidCapabilityError } from './invalid-capability-error.js';

interface ErrorClass {
  readonly name: string;
  isInstance(error: unknown): boolean;
}

const samples: readonly { readonly name: string; readonly errorClass: ErrorClass; readonly error: Error }[] = [
  {
    errorClass: CapabilityMissingError,
    error: new CapabilityMissingError({ message: 'missing', capability: 'codeRuntime', install: ['@sluice/x'] }),
  },
  {
    errorClass: CapabilityConflictError,
    error: new CapabilityConflictError({ message: 'taken', capability: 'codeRuntime' }),
  },
  {
    errorClass: InvalidCapabilityError,
    error: new InvalidCapabilityError({ message: 'bad', capability: 'codeRuntime' }),
  },
  { errorClass: ContextDisposedError, error: new ContextDisposedError({ message: 'disposed' }) },
].map((sample) => ({ ...sample, name: sample.errorClass.name }));

describe('context error classes', () => {
  it.each(samples)('$name recognises its own instances and has its class name', ({ errorClass, error }) => {
    expect(errorClass.isInstance(error)).toBe(true);
    expect(error.name).toBe(errorClass.name);
  });

  it.each(samples)('$name is a SluiceError', ({ error }) => {
    expect(SluiceError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(SluiceError);
  });

  it.each(samples)('$name refuses a plain Error, null, other classes and a contract error', ({ errorClass }) => {
    expect(errorClass.isInstance(new Error('plain'))).toBe(false);
    expect(errorClass.isInstance(null)).toBe(false);
    expect(errorClass.isInstance(new InvalidRequestError({ message: 'm', field: 'program' }))).toBe(false);
    for (const other of samples) {
      if (other.errorClass !== errorClass) expect(errorClass.isInstance(other.error)).toBe(false);
    }
  });

  it.each(samples)('$name recognises an object from another copy by its marker', ({ errorClass }) => {
    expect(errorClass.isInstance({ [Symbol.for(`sluice.error.${errorClass.name}`)]: true })).toBe(true);
  });

  it('keeps capability, install and cause', () => {
    const cause = new Error('root');
    const error = new CapabilityMissingError({ message: 'm', capability: 'clock', install: ['@acme/clock'], cause });
    expect(error).toMatchObject({ capability: 'clock', install: ['@acme/clock'], cause });
    expect(new CapabilityConflictError({ message: 'm', capability: 'clock', cause }).cause).toBe(cause);
    expect(new InvalidCapabilityError({ message: 'm', capability: 'clock' }).capability).toBe('clock');
  });
});
