import { InvalidSettingsError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import {
  interpreterBaselineBytes,
  outputSafetyMultiple,
  requiredAddressSpace,
  resolvePythonSettings,
} from './python-settings.js';

const mebibyte = 1024 * 1024;

function refusal(settings: object): string | undefined {
  try {
    resolvePythonSettings(settings, {});
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) return error.message;
    throw error;
  }
  return undefined;
}

describe('the budget gate', () => {
  it('reserves 64 MiB for the interpreter and 56 times the largest output budget (measured, see the decision record)', () => {
    expect(interpreterBaselineBytes).toBe(64 * mebibyte);
    expect(outputSafetyMultiple).toBe(56);
    expect(requiredAddressSpace({ valueBytes: mebibyte, hostCallBytes: 1024, logBytes: 1024 })).toBe(120 * mebibyte);
  });

  it('refuses what the 64 MiB baseline cannot hold, as the seed rule does', () => {
    for (const settings of [
      { memoryBytes: 128 * mebibyte, logBytes: 11 * mebibyte },
      { memoryBytes: 100 * mebibyte, valueBytes: 5 * mebibyte },
      { memoryBytes: 64 * mebibyte, valueBytes: 1024, hostCallBytes: 1024, logBytes: 1024 },
    ]) {
      expect(refusal(settings), JSON.stringify(settings)).toContain(`${interpreterBaselineBytes} for the interpreter`);
    }
  });

  it('accepts the defaults, and 8 MiB value and call budgets on the default 512 MiB', () => {
    expect(refusal({})).toBeUndefined();
    expect(refusal({ valueBytes: 8 * mebibyte, hostCallBytes: 8 * mebibyte })).toBeUndefined();
  });
});
