import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from './invalid-request-error.js';
import { InvalidSettingsError } from './invalid-settings-error.js';
import { RuntimeDisposedError } from './runtime-disposed-error.js';
import { SluiceError } from './sluice-error.js';

interface ErrorClass {
  readonly name: string;
  isInstance(error: unknown): boolean;
}

interface Sample {
  readonly name: string;
  readonly errorClass: ErrorClass;
  readonly error: Error;
}

// One instance of every class, built the way a caller would.
const samples: readonly Sample[] = [
  { errorClass: SluiceError, error: new SluiceError({ message: 'base' }) },
  {
    errorClass: InvalidRequestError,
    error: new InvalidRequestError({ message: 'bad name', field: 'bindings.tools.class' }),
  },
  {
    errorClass: InvalidSettingsError,
    error: new InvalidSettingsError({ message: 'bad budget', setting: 'timeoutMs' }),
  },
  { errorClass: RuntimeDisposedError, error: new RuntimeDisposedError({ message: 'disposed' }) },
].map((sample) => ({ ...sample, name: sample.errorClass.name }));

const subclasses = samples.filter(({ errorClass }) => errorClass !== SluiceError);

function markerOf(errorClass: ErrorClass): symbol {
  return Symbol.for(errorClass === SluiceError ? 'sluice.error' : `sluice.error.${errorClass.name}`);
}

describe('SluiceError classes', () => {
  it.each(samples)('$name recognises its own instances', ({ errorClass, error }) => {
    expect(errorClass.isInstance(error)).toBe(true);
  });

  it.each(samples)('$name has a name equal to its class name', ({ errorClass, error }) => {
    expect(error.name).toBe(errorClass.name);
    expect(String(error)).toMatch(new RegExp(`^${errorClass.name}: `));
  });

  it.each(samples)('$name is a real Error with a stack', ({ error }) => {
    expect(error).toBeInstanceOf(Error);
    expect(typeof error.stack).toBe('string');
  });

  it.each(subclasses)('$name is also recognised as a SluiceError', ({ error }) => {
    expect(SluiceError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(SluiceError);
  });

  it.each(samples)('$name refuses a plain Error, null, undefined and primitives', ({ errorClass }) => {
    for (const value of [new Error('plain'), new TypeError('type'), null, undefined, 'SluiceError', 1, {}]) {
      expect(errorClass.isInstance(value)).toBe(false);
    }
  });

  it.each(subclasses)('$name refuses the base class and every other class', ({ errorClass }) => {
    for (const other of samples) {
      if (other.errorClass !== errorClass) expect(errorClass.isInstance(other.error)).toBe(false);
    }
  });

  it.each(samples)('$name recognises an object from another copy of the package by its marker', ({ errorClass }) => {
    const marker = markerOf(errorClass);
    const fromAnotherCopy = Object.assign(new Error('copy'), { [marker]: true });
    expect(errorClass.isInstance(fromAnotherCopy)).toBe(true);
    expect(errorClass.isInstance({ [marker]: true })).toBe(true);
  });

  it.each(samples)('$name refuses a marker that is not exactly true', ({ errorClass }) => {
    const marker = markerOf(errorClass);
    expect(errorClass.isInstance({ [marker]: 'true' })).toBe(false);
    expect(errorClass.isInstance({ [marker]: 1 })).toBe(false);
  });

  it('keeps cause', () => {
    const cause = new Error('root');
    expect(new SluiceError({ message: 'm', cause }).cause).toBe(cause);
    expect(new InvalidRequestError({ message: 'm', field: 'program', cause }).cause).toBe(cause);
    expect(new InvalidSettingsError({ message: 'm', setting: 'timeoutMs', cause }).cause).toBe(cause);
    expect(new RuntimeDisposedError({ message: 'm', cause }).cause).toBe(cause);
  });

  it('keeps a falsy cause that is not undefined', () => {
    expect(new SluiceError({ message: 'm', cause: 0 }).cause).toBe(0);
    expect('cause' in new SluiceError({ message: 'm', cause: null })).toBe(true);
  });

  it('has no cause property when none is given', () => {
    expect('cause' in new SluiceError({ message: 'm' })).toBe(false);
  });

  it('keeps the message as given', () => {
    expect(new RuntimeDisposedError({ message: 'The runtime was disposed.' }).message).toBe(
      'The runtime was disposed.',
    );
  });
});

describe('InvalidRequestError', () => {
  it('keeps field', () => {
    expect(new InvalidRequestError({ message: 'm', field: 'bindings.tools' }).field).toBe('bindings.tools');
  });
});

describe('InvalidSettingsError', () => {
  it('keeps setting', () => {
    expect(new InvalidSettingsError({ message: 'm', setting: 'maxLogBytes' }).setting).toBe('maxLogBytes');
  });
});
