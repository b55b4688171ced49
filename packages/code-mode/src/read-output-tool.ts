import { type JsonObject, type JsonValue, wellFormedText } from '@sluice/code-runtime';
import { formatRetention, type ResultSpill } from './result-spill.js';

/** The paging tool's name, as the model calls it. */
export const readOutputToolName = 'read_output';

/** A page as the model reads it, and whether the request failed (an unknown id, bad input). */
export interface ReadOutputAnswer {
  readonly text: string;
  readonly isError: boolean;
}

/** `read_output`: pages through the full text of a cut `run_code` result, by the id its cut marker names. */
export interface ReadOutputTool {
  readonly name: typeof readOutputToolName;
  readonly description: string;
  /** `{ id, offset? }` as JSON Schema. */
  readonly inputSchema: JsonObject;
  /** Serves a model's call; never throws. */
  read(input: JsonValue): ReadOutputAnswer;
  /** Like {@link read}, resolving with the text only. */
  execute(input: JsonValue): Promise<string>;
}

const inputSchema: JsonObject = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The output id a cut run_code result names.' },
    offset: {
      type: 'integer',
      minimum: 0,
      description: 'UTF-8 byte offset to read from, as the result or the previous page says. Default 0.',
    },
  },
  required: ['id'],
  additionalProperties: false,
};

/**
 * The `read_output` tool over `spill`: each call returns up to `pageBytes` of a kept text from
 * `offset`, with a header saying which bytes these are and the call that reads the next page.
 */
export function createReadOutputTool(spill: ResultSpill, pageBytes: number): ReadOutputTool {
  const read = (input: JsonValue): ReadOutputAnswer => {
    const problem = (text: string): ReadOutputAnswer => ({
      text: wellFormedText(`[read_output] ${text}\n`),
      isError: true,
    });
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return problem('the input must be an object like {"id": "run_…", "offset": 0}.');
    }
    const { id, offset = 0, ...extra } = input;
    if (typeof id !== 'string' || id === '') return problem('`id` must be the output id a cut result names.');
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
      return problem('`offset` must be a non-negative integer (a byte offset).');
    }
    if (Object.keys(extra).length > 0)
      return problem(`unknown input field ${Object.keys(extra).join(', ')}; send id and offset.`);
    const page = spill.read(id, offset, pageBytes);
    if (page === undefined) {
      return problem(
        `no output is kept as ${JSON.stringify(id)}: outputs are kept for ${formatRetention(spill.retentionMs)} after their run. Run the program again, printing less.`,
      );
    }
    const end = page.offset + Buffer.byteLength(page.text, 'utf8');
    const next =
      page.nextOffset === undefined
        ? '[read_output] end of output.'
        : `[read_output] more: call read_output with {"id": ${JSON.stringify(id)}, "offset": ${page.nextOffset}}.`;
    return {
      text: `[read_output] ${id} · bytes ${page.offset}–${end} of ${page.totalBytes}\n${page.text}${page.text.endsWith('\n') ? '' : '\n'}${next}\n`,
      isError: false,
    };
  };
  return {
    name: readOutputToolName,
    description:
      'Read the full text of a run_code result that was cut to fit, page by page: pass the id and offset the cut result names, then the offset each page gives for the next.',
    inputSchema,
    read,
    execute: async (input) => read(input).text,
  };
}
