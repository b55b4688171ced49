import { SluiceError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  RunStoreConflictError,
  RunStoreError,
  RunStoreExpiredError,
  RunStoreLimitError,
  RunStoreNotFoundError,
} from './run-store-errors.js';

const classes = [RunStoreConflictError, RunStoreNotFoundError, RunStoreExpiredError, RunStoreLimitError] as const;

describe('run store errors', () => {
  it.each(classes)('%o is a RunStoreError and a SluiceError, recognised across copies by its marker', (ErrorClass) => {
    const error = new ErrorClass({ message: 'what went wrong', cause: 'why' });
    expect(error.name).toBe(ErrorClass.name);
    expect(error.message).toBe('what went wrong');
    expect(error.cause).toBe('why');
    expect(ErrorClass.isInstance(error)).toBe(true);
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(SluiceError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(RunStoreError);
    const copy = { [Symbol.for(`sluice.error.${ErrorClass.name}`)]: true };
    expect(ErrorClass.isInstance(copy)).toBe(true);
  });

  it.each(classes)('%o does not claim other errors', (ErrorClass) => {
    expect(ErrorClass.isInstance(new RunStoreError({ message: 'x' }))).toBe(false);
    expect(ErrorClass.isInstance(new Error('x'))).toBe(false);
    expect(ErrorClass.isInstance(null)).toBe(false);
    for (const other of classes.filter((candidate) => candidate !== ErrorClass))
      expect(ErrorClass.isInstance(new other({ message: 'x' }))).toBe(false);
  });

  it('RunStoreError is not claimed by its subclasses', () => {
    expect(RunStoreError.isInstance(new RunStoreError({ message: 'x' }))).toBe(true);
    expect(RunStoreError.isInstance(new SluiceError({ message: 'x' }))).toBe(false);
  });
});
