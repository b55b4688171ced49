/**
 * Text inserted into a program on one line, before the model's own `column` (0-based) of `line`
 * (1-based). Everything after it on that line moved right by `width`.
 */
export interface Insertion {
  readonly line: number;
  readonly column: number;
  readonly width: number;
}

/** A program after its edits, and where the edits moved the model's columns. */
export interface EditedText {
  readonly text: string;
  readonly insertions: readonly Insertion[];
}

/**
 * Edits to a program's text that never add or remove a line: a blanked range keeps its line
 * breaks and turns every other character into a space, and inserted text has no line break. So
 * every line keeps its number, and only insertions move columns, on their own line.
 */
export class ProgramEdits {
  readonly #text: string;
  readonly #blanks: Array<readonly [number, number]> = [];
  readonly #inserts: Array<readonly [number, string, number]> = [];

  constructor(text: string) {
    this.#text = text;
  }

  /** Turns `[start, end)` into spaces, line breaks kept. */
  blank(start: number, end: number): void {
    this.#blanks.push([start, end]);
  }

  /** Inserts `text` (no line break) before `offset`; at one offset, earlier calls come first. */
  insert(offset: number, text: string): void {
    this.#inserts.push([offset, text, this.#inserts.length]);
  }

  apply(): EditedText {
    if (this.#blanks.length === 0 && this.#inserts.length === 0) return { text: this.#text, insertions: [] };
    let blanked = this.#text;
    if (this.#blanks.length > 0) {
      // By UTF-16 unit, so offsets stay the parser's; a blanked surrogate pair becomes two spaces.
      const units = blanked.split('');
      for (const [start, end] of this.#blanks) {
        for (let index = start; index < end; index += 1) {
          if (units[index] !== '\n' && units[index] !== '\r') units[index] = ' ';
        }
      }
      blanked = units.join('');
    }
    const inserts = [...this.#inserts].sort((left, right) => left[0] - right[0] || left[2] - right[2]);
    const starts = lineStarts(blanked);
    const insertions: Insertion[] = [];
    let text = '';
    let from = 0;
    let line = 0;
    for (const [offset, inserted] of inserts) {
      text += blanked.slice(from, offset) + inserted;
      from = offset;
      while (line + 1 < starts.length && starts[line + 1]! <= offset) line += 1;
      insertions.push({ line: line + 1, column: offset - starts[line]!, width: inserted.length });
    }
    text += blanked.slice(from);
    return { text, insertions };
  }
}

/** The offset of each line's first character. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/**
 * Maps a 0-based column on `line` of the edited text back to the model's column: a position
 * inside inserted text maps to where it was inserted.
 */
export function modelColumn(insertions: readonly Insertion[] | undefined, line: number, column: number): number {
  if (insertions === undefined) return column;
  let moved = 0;
  for (const insertion of insertions) {
    if (insertion.line !== line) continue;
    const at = insertion.column + moved;
    if (column < at) break;
    if (column < at + insertion.width) return insertion.column;
    moved += insertion.width;
  }
  return column - moved;
}
