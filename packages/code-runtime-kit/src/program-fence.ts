import { lineStarts } from './program-edits.js';

/** Fence languages that mean this runtime's programs. */
const languages = new Set(['', 'ts', 'typescript', 'js', 'javascript', 'mjs', 'mts', 'cjs', 'cts']);

/** A markdown fence found around a program. */
export type Fence =
  | { readonly kind: 'none' }
  | { readonly kind: 'fence'; readonly ranges: ReadonlyArray<readonly [number, number]> }
  | { readonly kind: 'foreign'; readonly language: string; readonly line: number };

/**
 * Finds a markdown fence around the whole program: an opening line (three or more backticks or
 * tildes and a TypeScript or JavaScript language tag, or none) as the first non-blank line, and
 * the matching closing line as the last non-blank one (missing when the answer was cut). Returns
 * the lines' offset ranges, to be blanked, so every other line keeps its number and columns.
 * A fence tagged with another language is reported, not stripped.
 */
export function findFence(text: string): Fence {
  const starts = lineStarts(text);
  const lineText = (index: number): string => {
    const end = index + 1 < starts.length ? starts[index + 1]! - 1 : text.length;
    return text.slice(starts[index], end);
  };
  let first = 0;
  while (first < starts.length && lineText(first).trim() === '') first += 1;
  if (first === starts.length) return { kind: 'none' };
  const opening = lineText(first).trim();
  const marker = fenceMarker(opening);
  if (marker === undefined) return { kind: 'none' };
  const language = opening.slice(marker.length).trim();
  // The tag is one word; anything after it (`ts title="x"`) is markdown metadata.
  const tag = (language.split(' ')[0] ?? '').toLowerCase();
  if (!languages.has(tag)) return { kind: 'foreign', language: tag, line: first + 1 };
  const ranges: Array<readonly [number, number]> = [[starts[first]!, starts[first]! + lineText(first).length]];
  let last = starts.length - 1;
  while (last > first && lineText(last).trim() === '') last -= 1;
  const closing = lineText(last).trim();
  if (last > first && fenceMarker(closing) === closing && closing.startsWith(marker)) {
    ranges.push([starts[last]!, starts[last]! + lineText(last).length]);
  }
  return { kind: 'fence', ranges };
}

/** The run of three or more backticks or tildes a line starts with. */
function fenceMarker(line: string): string | undefined {
  const character = line[0];
  if (character !== '`' && character !== '~') return undefined;
  let length = 0;
  while (line[length] === character) length += 1;
  return length >= 3 ? line.slice(0, length) : undefined;
}
