import { InvalidSettingsError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { defaultRunLimits } from './run-limits.js';
import {
  booleanSetting,
  checkSettingsObject,
  integerSetting,
  sharedRunLimitSettings,
  stringSetting,
} from './settings.js';

function settingError(action: () => unknown): InvalidSettingsError | undefined {
  try {
    action();
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) return error;
    throw error;
  }
  return undefined;
}

describe('integerSetting', () => {
  it('returns the default when absent and the value when it is an integer in bounds', () => {
    expect(integerSetting({}, 'wallTimeMs', 30_000)).toBe(30_000);
    expect(integerSetting({ wallTimeMs: 5 }, 'wallTimeMs', 30_000)).toBe(5);
    expect(integerSetting({ hostCalls: 0 }, 'hostCalls', 10, { min: 0, max: 10 })).toBe(0);
    expect(integerSetting({ hostCalls: 10 }, 'hostCalls', 1, { min: 0, max: 10 })).toBe(10);
  });

  it('throws InvalidSettingsError naming the setting for anything else', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '5', null, true, [5]]) {
      expect(settingError(() => integerSetting({ wallTimeMs: value }, 'wallTimeMs', 1))?.setting).toBe('wallTimeMs');
    }
    expect(settingError(() => integerSetting({ hostCalls: 11 }, 'hostCalls', 1, { min: 0, max: 10 }))).toBeDefined();
  });
});

describe('booleanSetting', () => {
  it('returns the default when absent, the value when boolean, and throws otherwise', () => {
    expect(booleanSetting({}, 'allowEval', false)).toBe(false);
    expect(booleanSetting({ allowEval: true }, 'allowEval', false)).toBe(true);
    expect(settingError(() => booleanSetting({ allowEval: 'yes' }, 'allowEval', false))?.setting).toBe('allowEval');
  });
});

describe('stringSetting', () => {
  it('returns undefined when absent, the value when a non-empty string, and throws otherwise', () => {
    expect(stringSetting({}, 'executable')).toBeUndefined();
    expect(stringSetting({ executable: '/usr/bin/python3' }, 'executable')).toBe('/usr/bin/python3');
    for (const value of ['', 3, null]) {
      expect(settingError(() => stringSetting({ executable: value }, 'executable'))?.setting).toBe('executable');
    }
  });
});

describe('checkSettingsObject', () => {
  it('accepts a plain object of known settings', () => {
    expect(() => checkSettingsObject({ wallTimeMs: 1 }, ['wallTimeMs', 'logBytes'])).not.toThrow();
    expect(() => checkSettingsObject({}, [])).not.toThrow();
  });

  it('refuses a value that is not an object, and a misspelt setting by name', () => {
    for (const value of [null, undefined, 'settings', 3, []]) {
      expect(settingError(() => checkSettingsObject(value, ['wallTimeMs']))).toBeDefined();
    }
    expect(settingError(() => checkSettingsObject({ wallTimeMS: 1 }, ['wallTimeMs']))?.setting).toBe('wallTimeMS');
  });
});

describe('sharedRunLimitSettings', () => {
  it('fills in the defaults and keeps what was given', () => {
    expect(sharedRunLimitSettings({})).toEqual({ ...defaultRunLimits });
    expect(sharedRunLimitSettings({ wallTimeMs: 5, hostCalls: 0 })).toMatchObject({ wallTimeMs: 5, hostCalls: 0 });
  });

  it('refuses a wall clock a Node timer cannot honour, naming the setting', () => {
    const error = (() => {
      try {
        sharedRunLimitSettings({ wallTimeMs: 2 ** 31 });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(InvalidSettingsError.isInstance(error) && error.setting).toBe('wallTimeMs');
  });
});
