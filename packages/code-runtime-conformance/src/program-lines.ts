/** Joins source lines with `\n`, so a program's line numbers can be read off its list. */
export function lines(...source: string[]): string {
  return source.join('\n');
}

/** The 1-based line of the first line of `program` that contains `marker`, or `undefined`. */
export function lineOf(program: string, marker: string): number | undefined {
  const index = program.split('\n').findIndex((line) => line.includes(marker));
  return index === -1 ? undefined : index + 1;
}
