/**
 * Lines the wrapper puts before the program: the model's line N is line N + `wrapperLines` of the
 * code a worker runs.
 */
export const wrapperLines = 1;

/**
 * The program (the body of an async function) as an async arrow, not yet called. What
 * normalisation adds after the program (`return main();`) goes on a line of its own after it.
 */
export function programArrow(body: string, epilogue: string): string {
  return epilogue === '' ? `async () => {\n${body}\n}` : `async () => {\n${body}\n;${epilogue}\n}`;
}

/** The code a worker runs: the program's arrow, called. Its value is the run's promise. */
export function wrapProgram(body: string, epilogue: string): string {
  return `(${programArrow(body, epilogue)})()`;
}
