import { InvalidSettingsError } from '@sluice/code-runtime';
import { describe, expect, it } from 'vitest';
import { interpreterBaselineBytes, outputSafetyMultiple, resolvePythonSettings } from './python-settings.js';

function settingOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (InvalidSettingsError.isInstance(error)) return error.setting;
    throw error;
  }
  return undefined;
}

describe('resolvePythonSettings', () => {
  it('fills in the defaults', () => {
    const config = resolvePythonSettings({}, {});
    expect(config).toMatchObject({
      executable: 'python3',
      executableSource: 'default',
      cpuSeconds: 10,
      memoryBytes: 512 * 1024 * 1024,
      allowSitePackages: false,
      requireContainment: false,
      limits: { wallTimeMs: 30_000, logBytes: 65_536, valueBytes: 1_048_576, hostCalls: 1_000 },
    });
  });

  it('takes the interpreter from the setting, then SLUICE_PYTHON_EXECUTABLE, then python3', () => {
    const environment = { SLUICE_PYTHON_EXECUTABLE: '/opt/python/bin/python3.12' };
    expect(resolvePythonSettings({ pythonExecutable: '/usr/bin/python3' }, environment)).toMatchObject({
      executable: '/usr/bin/python3',
      executableSource: 'setting',
    });
    expect(resolvePythonSettings({}, environment)).toMatchObject({
      executable: '/opt/python/bin/python3.12',
      executableSource: 'environment',
    });
    expect(resolvePythonSettings({}, { SLUICE_PYTHON_EXECUTABLE: '' }).executable).toBe('python3');
  });

  it('rounds the CPU budget up to whole seconds', () => {
    expect(resolvePythonSettings({ cpuTimeMs: 1_500 }, {}).cpuSeconds).toBe(2);
  });

  it('throws InvalidSettingsError naming an unknown, mistyped or out-of-range setting', () => {
    expect(settingOf(() => resolvePythonSettings({ wallTimeMS: 5 }, {}))).toBe('wallTimeMS');
    expect(settingOf(() => resolvePythonSettings({ logBytes: '4k' }, {}))).toBe('logBytes');
    expect(settingOf(() => resolvePythonSettings({ cpuTimeMs: 0 }, {}))).toBe('cpuTimeMs');
    expect(settingOf(() => resolvePythonSettings({ allowSitePackages: 'yes' }, {}))).toBe('allowSitePackages');
    expect(settingOf(() => resolvePythonSettings({ pythonExecutable: '' }, {}))).toBe('pythonExecutable');
    expect(settingOf(() => resolvePythonSettings('fast', {}))).toBe('(settings)');
  });

  it('refuses output budgets that cannot fit the address space (the budget gate)', () => {
    const memoryBytes = 128 * 1024 * 1024;
    const largest = Math.floor((memoryBytes - interpreterBaselineBytes) / outputSafetyMultiple);
    expect(settingOf(() => resolvePythonSettings({ memoryBytes, valueBytes: largest, hostCallBytes: 1024 }, {}))).toBe(
      undefined,
    );
    expect(
      settingOf(() => resolvePythonSettings({ memoryBytes, valueBytes: largest + 1, hostCallBytes: 1024 }, {})),
    ).toBe('memoryBytes');
    expect(settingOf(() => resolvePythonSettings({ memoryBytes, logBytes: largest + 1 }, {}))).toBe('memoryBytes');
  });
});
