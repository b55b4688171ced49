import { utf8ByteLength } from '@sluice/code-runtime';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Tokens of text a model reads, counted with the `o200k_base` encoding (GPT-4o and later) from
 * `gpt-tokenizer`. Other families' tokenizers are not public or differ; for English and code they
 * count within about 15% of it, so it serves as the estimate for them (see the decision record).
 */
export function countTokens(text: string): number {
  return text === '' ? 0 : countO200k(text);
}

/**
 * A rough token count: UTF-8 bytes divided by 4, rounded up. Results are cut by it (a byte budget
 * is what cutting needs); the declarations are measured with {@link countTokens}.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8ByteLength(text) / 4);
}
