/**
 * Compiles a tool-name pattern to an anchored test: `*` matches any run of characters (none
 * included), `?` exactly one, everything else itself.
 */
export function compileToolPattern(pattern: string): (toolName: string) => boolean {
  if (!pattern.includes('*') && !pattern.includes('?')) return (toolName) => toolName === pattern;
  let source = '';
  for (const character of pattern) {
    if (character === '*') source += '[\\s\\S]*';
    else if (character === '?') source += '[\\s\\S]';
    else source += character.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`, 'u');
  return (toolName) => regex.test(toolName);
}
