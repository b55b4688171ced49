import { createRequire } from 'node:module';
import { utf8ByteLength } from '@sluice/code-runtime';

type CountO200k = (text: string) => number;

let countO200k: CountO200k | undefined;

/**
 * The encoding's counter, loaded on the first count: its tables take most of a second to load, which
 * a process that never counts (one `sluice run`) should not pay. Through `require`, so the count stays
 * synchronous.
 */
function o200k(): CountO200k {
  countO200k ??= (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountO200k })
    .countTokens;
  return countO200k;
}

/**
 * Tokens of text a model reads, counted with the `o200k_base` encoding (GPT-4o and later) from
 * `gpt-tokenizer`. Other families' tokenizers are not public or differ; for English and code they
 * count within about 15% of it, so it serves as the estimate for them (see the decision record).
 */
export function countTokens(text: string): number {
  return text === '' ? 0 : o200k()(text);
}

/**
 * Whether `text` certainly takes at most `budget` tokens without counting them: each `o200k_base`
 * token stands for at least one UTF-8 byte, so text of at most `budget` bytes fits. `false` means
 * only that counting must decide.
 */
export function surelyFits(text: string, budget: number): boolean {
  return utf8ByteLength(text) <= budget;
}

/**
 * A rough token count: UTF-8 bytes divided by 4, rounded up. Results are cut by it (a byte budget
 * is what cutting needs); the declarations are measured with {@link countTokens}.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8ByteLength(text) / 4);
}
