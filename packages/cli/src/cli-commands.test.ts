import { describe, expect, it } from 'vitest';
import { budgetFlags } from './cli-budgets.js';
import { commandHelpText, commandSpecs, overviewText } from './cli-commands.js';

describe('overviewText', () => {
  it('lists every command, mcp included, with its synopsis', () => {
    const text = overviewText();
    for (const name of ['run', 'declarations', 'demo', 'mcp']) {
      expect(text).toContain(`  sluice ${name}`);
      expect(text).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    }
    expect(text).toContain('sluice run <program.ts|.js|.py|->');
  });
});

describe('commandHelpText', () => {
  it("prints each command's synopsis and every option it reads", () => {
    for (const spec of commandSpecs.filter((candidate) => candidate.name !== 'mcp')) {
      const text = commandHelpText(spec);
      expect(text.startsWith(`Usage: ${spec.synopsis}\n`)).toBe(true);
      for (const option of spec.options) expect(text).toMatch(new RegExp(`--${option.name}\\b.* {2}\\S`));
    }
  });

  it('documents the unit of every budget flag', () => {
    const run = commandHelpText(commandSpecs.find((spec) => spec.name === 'run')!);
    expect(run).toMatch(/--wall-time-ms <ms> +Wall clock per run in ms/);
    expect(run).toMatch(/--memory-bytes <bytes> +Memory per run in bytes/);
  });

  it('offers --runtime worker-thread|quickjs on run and declarations', () => {
    for (const name of ['run', 'declarations']) {
      const text = commandHelpText(commandSpecs.find((spec) => spec.name === name)!);
      expect(text).toMatch(/--runtime <worker-thread\|quickjs> +The provider for a TypeScript\/JavaScript program/);
    }
  });
});

describe('budgetFlags', () => {
  it('are the kebab-case names of the provider budget settings, each once (pinned)', () => {
    expect(budgetFlags.map(({ flag, setting }) => [flag, setting])).toEqual([
      ['wall-time-ms', 'wallTimeMs'],
      ['cpu-time-ms', 'cpuTimeMs'],
      ['memory-bytes', 'memoryBytes'],
      ['log-bytes', 'logBytes'],
      ['value-bytes', 'valueBytes'],
      ['host-call-bytes', 'hostCallBytes'],
      ['host-calls', 'hostCalls'],
      ['concurrent-host-calls', 'concurrentHostCalls'],
      ['source-bytes', 'sourceBytes'],
    ]);
    for (const { flag, setting } of budgetFlags) {
      expect(flag.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())).toBe(setting);
    }
  });
});
