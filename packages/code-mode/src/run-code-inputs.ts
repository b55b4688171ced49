/** Why a `run_code` input cannot run, in one sentence for the model; `undefined` when it can. */
export function inputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'the input must be an object like {"code": "..."}.';
  }
  const { code, description } = input as Record<string, unknown>;
  if (typeof code !== 'string' || code.trim() === '') return '`code` must be a non-empty string holding the program.';
  if (description !== undefined && typeof description !== 'string') return '`description` must be a string when given.';
  const extra = Object.keys(input).filter((key) => key !== 'code' && key !== 'description');
  if (extra.length > 0)
    return `unknown input field${extra.length === 1 ? '' : 's'} ${extra.join(', ')}; send only code and description.`;
  return undefined;
}
