import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CodeRunResult,
  foreignText,
  InvalidRequestError,
  truncateUtf8,
  utf8ByteLength,
} from '@sluice/code-runtime';
import { estimateTokens } from './declarations.js';
import { renderSections } from './result-render.js';

/** The default {@link RenderResultOptions.tokenBudget}: about 24 KB of text. */
export const defaultResultTokenBudget = 6_000;

/** The smallest token budget accepted: room for the header, the cut marker and a little of each end. */
export const minResultTokenBudget = 200;

/** Options for {@link renderResult}. */
export interface RenderResultOptions {
  /**
   * Estimated tokens (UTF-8 bytes / 4) the text may take. Longer text keeps its header, head and
   * tail, with a marker where the middle was cut. Default {@link defaultResultTokenBudget}.
   */
  readonly tokenBudget?: number;
  /**
   * Where the full text of a cut result is written, as `<runId>.txt` (the directory is created,
   * owner-only). Default `<os tmpdir>/sluice-results`.
   */
  readonly spillDirectory?: string;
}

/** A result as the model reads it. */
export interface RenderedResult {
  readonly text: string;
  /** {@link estimateTokens} of `text`. */
  readonly estimatedTokens: number;
  /** Whether the budget cut the text. The text then says so in its header and at the cut. */
  readonly cut: boolean;
  /** Where the full text was written, when it was cut and the file could be written. */
  readonly spillPath: string | undefined;
}

/**
 * Renders a run's result for the model (see {@link renderSections}) under a token budget. Over
 * budget, the middle of the body is replaced by a marker saying how much was cut and where the
 * full text was written; if the file cannot be written the marker says that instead. Never a
 * silent cut.
 */
export function renderResult(result: CodeRunResult, options: RenderResultOptions = {}): RenderedResult {
  const budget = options.tokenBudget ?? defaultResultTokenBudget;
  if (!Number.isInteger(budget) || budget < minResultTokenBudget) {
    throw new InvalidRequestError({
      message: `tokenBudget must be an integer of at least ${minResultTokenBudget}, got ${String(budget)}.`,
      field: 'tokenBudget',
    });
  }
  const { header, body } = renderSections(result);
  const full = `${header}\n${body}`;
  if (estimateTokens(full) <= budget) {
    return { text: full, estimatedTokens: estimateTokens(full), cut: false, spillPath: undefined };
  }
  const spill = writeSpill(options.spillDirectory ?? join(tmpdir(), 'sluice-results'), result.runId, full);
  const cutHeader = `${header} · cut to fit ${budget} tokens`;
  const fullBytes = utf8ByteLength(full);
  const where =
    spill.path === undefined
      ? `The full text could not be saved (${spill.error}).`
      : `The full text (${fullBytes} bytes) is in ${spill.path}.`;
  const marker = (cutBytes: number) =>
    `[sluice] ✂ ${cutBytes} bytes (about ${Math.ceil(cutBytes / 4)} tokens) were cut here to keep this result under ${budget} tokens. ${where} Print less, or return a smaller value, to see it all.`;
  // The marker's own length depends on the number it reports; reserve room for the widest number.
  const reserve = utf8ByteLength(cutHeader) + utf8ByteLength(marker(fullBytes)) + 4;
  const room = Math.max(0, budget * 4 - reserve);
  const head = headLines(body, Math.floor(room * 0.6));
  const tail = tailLines(body.slice(head.length), room - utf8ByteLength(head));
  const cutBytes = utf8ByteLength(body) - utf8ByteLength(head) - utf8ByteLength(tail);
  const text = `${cutHeader}\n${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${marker(cutBytes)}\n${tail}`;
  return { text, estimatedTokens: estimateTokens(text), cut: true, spillPath: spill.path };
}

function writeSpill(directory: string, runId: string, text: string): { path?: string; error?: string } {
  const path = join(directory, `${runId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(path, text, { mode: 0o600 });
    return { path };
  } catch (error) {
    return { error: foreignText(error, 1024) };
  }
}

/** The longest prefix within `maxBytes`, ending at a line break when one falls in its last quarter. */
function headLines(text: string, maxBytes: number): string {
  const prefix = truncateUtf8(text, maxBytes);
  if (prefix.length === text.length) return prefix;
  const lastBreak = prefix.lastIndexOf('\n');
  return lastBreak >= prefix.length * 0.75 ? prefix.slice(0, lastBreak + 1) : prefix;
}

/** The longest suffix within `maxBytes`, starting after a line break when one falls in its first quarter. */
function tailLines(text: string, maxBytes: number): string {
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    const code = text.charCodeAt(start - 1);
    const before = text.charCodeAt(start - 2);
    const pair = code >= 0xdc00 && code <= 0xdfff && before >= 0xd800 && before <= 0xdbff;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    start -= pair ? 2 : 1;
  }
  const suffix = text.slice(start);
  if (start === 0) return suffix;
  const firstBreak = suffix.indexOf('\n');
  return firstBreak !== -1 && firstBreak <= suffix.length * 0.25 ? suffix.slice(firstBreak + 1) : suffix;
}
