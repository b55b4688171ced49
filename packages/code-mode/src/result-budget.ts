import { type CodeRunResult, InvalidRequestError, truncateUtf8, utf8ByteLength } from '@sluice/code-runtime';
import { estimateTokens } from './declarations.js';
import { type RenderedSections, renderSections } from './result-render.js';
import { defaultSpillRetentionMs, formatRetention, ResultSpill } from './result-spill.js';

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
   * Where the full text of a cut result is written, as `sluice-output-<runId>.txt` (the directory
   * is created, owner-only). Default `<os tmpdir>/sluice-results`. Ignored when `spill` is given.
   */
  readonly spillDirectory?: string;
  /**
   * How long the full text of a cut result is kept, in milliseconds (see {@link ResultSpill}).
   * Default one hour. Ignored when `spill` is given.
   */
  readonly spillRetentionMs?: number;
  /** Where cut results are kept; by default a spill over `spillDirectory` and `spillRetentionMs`. */
  readonly spill?: ResultSpill;
  /**
   * The name of the tool the model pages through kept output with (`read_output`), when it has one:
   * the cut marker then names the output's id and the offset of the cut. Without it the text says
   * only how much was cut; host paths are never shown to the model.
   */
  readonly readOutputTool?: string;
}

/** A result as the model reads it. */
export interface RenderedResult {
  readonly text: string;
  /** {@link estimateTokens} of `text`. */
  readonly estimatedTokens: number;
  /** Whether the budget cut the text. The text then says so in its header and at the cut. */
  readonly cut: boolean;
  /** Where the full text was written, when it was cut and the file could be written. For the host; the model is never told. */
  readonly spillPath: string | undefined;
  /** The id the full text is kept under for the paging tool, when it was cut and could be kept. */
  readonly outputId?: string | undefined;
}

/**
 * Renders a run's result for the model (see {@link renderSections}) under a token budget. Over
 * budget, the middle of the body is replaced by a marker saying how much was cut and, when the
 * model has a paging tool, the id and offset to read it from; the full text is kept by the spill
 * for its retention. Never a silent cut.
 */
export function renderResult(result: CodeRunResult, options: RenderResultOptions = {}): RenderedResult {
  return fitSections(renderSections(result), result.runId, options);
}

/**
 * A header and body (see {@link renderSections}) as one text under the token budget, cut as
 * {@link renderResult} cuts; the full text is kept under `runId` when cut.
 */
export function fitSections(
  { header, body }: RenderedSections,
  runId: string,
  options: RenderResultOptions = {},
): RenderedResult {
  const budget = options.tokenBudget ?? defaultResultTokenBudget;
  if (!Number.isInteger(budget) || budget < minResultTokenBudget) {
    throw new InvalidRequestError({
      message: `tokenBudget must be an integer of at least ${minResultTokenBudget}, got ${String(budget)}.`,
      field: 'tokenBudget',
    });
  }
  const full = `${header}\n${body}`;
  if (estimateTokens(full) <= budget) {
    return { text: full, estimatedTokens: estimateTokens(full), cut: false, spillPath: undefined };
  }
  const spill = (
    options.spill ??
    new ResultSpill({
      ...(options.spillDirectory === undefined ? {} : { directory: options.spillDirectory }),
      ...(options.spillRetentionMs === undefined ? {} : { retentionMs: options.spillRetentionMs }),
    })
  ).write(runId, full);
  const kept = 'id' in spill ? spill : undefined;
  const cutHeader = `${header} · cut to fit ${budget} tokens`;
  const fullBytes = utf8ByteLength(full);
  const bodyStart = utf8ByteLength(header) + 1;
  const marker = (cutBytes: number, cutAt: number) => {
    const how =
      options.readOutputTool === undefined
        ? 'Print less, or return a smaller value, to see it all.'
        : kept === undefined
          ? 'The full text could not be kept; print less, or return a smaller value, to see it all.'
          : `The full text (${fullBytes} bytes) is kept for ${formatRetention(options.spill?.retentionMs ?? options.spillRetentionMs ?? defaultSpillRetentionMs)}: call ${options.readOutputTool} with {"id": ${JSON.stringify(kept.id)}, "offset": ${cutAt}} to read on from the cut.`;
    return `[sluice] ✂ ${cutBytes} bytes (about ${Math.ceil(cutBytes / 4)} tokens) were cut here to keep this result under ${budget} tokens. ${how}`;
  };
  // The marker's own length depends on the number it reports; reserve room for the widest number.
  const reserve = utf8ByteLength(cutHeader) + utf8ByteLength(marker(fullBytes, fullBytes)) + 4;
  const room = Math.max(0, budget * 4 - reserve);
  const head = headLines(body, Math.floor(room * 0.6));
  const tail = tailLines(body.slice(head.length), room - utf8ByteLength(head));
  const headBytes = utf8ByteLength(head);
  const cutBytes = utf8ByteLength(body) - headBytes - utf8ByteLength(tail);
  const text = `${cutHeader}\n${head}${head.endsWith('\n') || head === '' ? '' : '\n'}${marker(cutBytes, bodyStart + headBytes)}\n${tail}`;
  return {
    text,
    estimatedTokens: estimateTokens(text),
    cut: true,
    spillPath: kept?.path,
    outputId: options.readOutputTool === undefined ? undefined : kept?.id,
  };
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
