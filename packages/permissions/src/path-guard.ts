/** Where a path argument may point: inside one of `roots`, compared segment by segment. */
export interface PathGuardOptions {
  /**
   * Absolute directories the path must lie within (`/srv/data`, or `C:\data` on Windows). All
   * roots of one guard use the same style. A root matches itself and anything below it.
   */
  readonly roots: readonly string[];
  /**
   * When set, a relative path is taken relative to this absolute directory (and must still end up
   * within `roots`). When absent, relative paths are refused.
   */
  readonly relativeTo?: string;
}

/** A {@link PathGuardOptions} checked and normalised once, ready to test many paths. */
export interface PathGuard {
  readonly roots: readonly string[];
  readonly relativeTo?: string;
  /** Why `value` is not a path within the roots, or `undefined` when it is. */
  problem(value: unknown): string | undefined;
}

type PathStyle = 'posix' | 'windows';

interface ParsedPath {
  /** Lower-case drive letter with colon (`c:`) for Windows paths, `''` for POSIX paths. */
  readonly drive: string;
  readonly segments: readonly string[];
}

const windowsAbsolute = /^[A-Za-z]:[\\/]/;
const encodedRun = /(?:%[0-9A-Fa-f]{2})+/g;
const encodedByte = /%[0-9A-Fa-f]{2}/;
const maxDecodeRounds = 4;
const maxShown = 200;
const utf8 = new TextDecoder('utf-8');

/**
 * Checks `options` and returns a guard. Throws `Error` with a short reason when a root or
 * `relativeTo` is not an absolute path, contains a NUL byte, or mixes POSIX and Windows styles; the
 * policy loader turns that into an `InvalidSettingsError` naming the rule.
 */
export function createPathGuard(options: PathGuardOptions): PathGuard {
  if (options.roots.length === 0) throw new Error('needs at least one root');
  const styles = new Set(options.roots.map(rootStyle));
  if (styles.size > 1) throw new Error('mixes POSIX and Windows roots; use one style per guard');
  const style: PathStyle = styles.has('windows') ? 'windows' : 'posix';
  const roots = options.roots.map((root) => parseRoot(root, style));
  const base = options.relativeTo === undefined ? undefined : parseRoot(options.relativeTo, style);
  const guard: PathGuard = {
    roots: [...options.roots],
    ...(options.relativeTo === undefined ? {} : { relativeTo: options.relativeTo }),
    problem: (value) => pathProblem(value, style, roots, base, guard.roots),
  };
  return Object.freeze(guard);
}

/**
 * Why `value` is not a path within `options.roots`, or `undefined` when it is. Convenience for a
 * one-off check; build a guard with {@link createPathGuard} to check many paths.
 */
export function pathGuardProblem(value: unknown, options: PathGuardOptions): string | undefined {
  return createPathGuard(options).problem(value);
}

function rootStyle(root: string): PathStyle {
  return windowsAbsolute.test(root) ? 'windows' : 'posix';
}

function parseRoot(root: string, style: PathStyle): ParsedPath {
  if (typeof root !== 'string' || root === '') throw new Error('a root must be a non-empty string');
  if (root.includes('\0')) throw new Error(`root ${JSON.stringify(root)} contains a NUL byte`);
  if (rootStyle(root) !== style) throw new Error('mixes POSIX and Windows roots; use one style per guard');
  if (style === 'posix' && !root.startsWith('/')) {
    throw new Error(`root ${JSON.stringify(root)} is not absolute (start it with / or a drive letter)`);
  }
  if (style === 'posix' && root.includes('\\')) {
    throw new Error(`root ${JSON.stringify(root)} contains a backslash; POSIX roots use /`);
  }
  const parsed = parse(root, style);
  if (parsed === 'relative') throw new Error(`root ${JSON.stringify(root)} is not absolute`);
  if (typeof parsed === 'string') throw new Error(`root ${JSON.stringify(root)} ${parsed}`);
  return parsed;
}

function pathProblem(
  value: unknown,
  style: PathStyle,
  roots: readonly ParsedPath[],
  base: ParsedPath | undefined,
  rootTexts: readonly string[],
): string | undefined {
  if (typeof value !== 'string') return `must be a path string, got ${describeType(value)}`;
  if (value === '') return 'must be a path, got an empty string';
  const decoded = percentDecode(value);
  if (decoded === undefined) return `${quote(value)} is percent-encoded too many times`;
  if (decoded.includes('\uFFFD') && !value.includes('\uFFFD')) {
    return `${quote(value)} contains a percent-encoded byte sequence that is not valid UTF-8`;
  }
  // Both readings must pass: the raw text (what a filesystem call sees) and the decoded text (what
  // a URL-handling tool sees). On POSIX, a backslash is a name character to the kernel but a
  // separator to anything Windows-minded downstream, so both of those readings must pass too.
  const candidates = decoded === value ? [value] : [value, decoded];
  for (const candidate of candidates) {
    if (candidate.includes('\0')) return `${quote(value)} contains a NUL byte`;
    const readings = style === 'windows' || !candidate.includes('\\') ? [true] : [false, true];
    for (const backslashIsSeparator of readings) {
      const problem = readingProblem(candidate, style, backslashIsSeparator, roots, base, rootTexts, value);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function readingProblem(
  candidate: string,
  style: PathStyle,
  backslashIsSeparator: boolean,
  roots: readonly ParsedPath[],
  base: ParsedPath | undefined,
  rootTexts: readonly string[],
  original: string,
): string | undefined {
  const text = backslashIsSeparator ? candidate.replaceAll('\\', '/') : candidate;
  let parsed = parse(text, style);
  if (parsed === 'relative') {
    if (base === undefined) {
      return `${quote(original)} is a relative path; give an absolute path within ${rootTexts.join(', ')}`;
    }
    if (/^~/.test(text)) return `${quote(original)} starts with ~, which some tools expand to a home directory`;
    parsed = parse(`${format(base)}/${text}`, style);
  }
  if (typeof parsed === 'string') return `${quote(original)} ${parsed}`;
  const resolved = parsed;
  if (roots.some((root) => isWithin(resolved, root))) return undefined;
  const shown = format(resolved);
  const resolvesTo = shown === original ? '' : ` (it resolves to ${quote(shown).slice(1, -1)})`;
  return `${quote(original)}${resolvesTo} is not within ${rootTexts.join(', ')}`;
}

/**
 * Splits an absolute path into a drive and segments, resolving `.` and `..` lexically (a `..` at
 * the top stays at the top, as POSIX does) and dropping repeated and trailing separators. Returns
 * `'relative'` for a relative path, or a problem for a path no guard should guess about.
 */
function parse(text: string, style: PathStyle): ParsedPath | 'relative' | string {
  const normal = style === 'windows' ? text.replaceAll('\\', '/') : text;
  let drive = '';
  let rest = normal;
  if (style === 'windows') {
    // `\\server\share`, `\\?\C:\x` and `\x` are absolute to Windows but name no drive, and `C:x` is
    // relative to that drive's current directory: none may be read as relative to a base.
    if (normal.startsWith('/')) return 'is rooted but names no drive; give a full path such as C:\\data\\file';
    if (/^[A-Za-z]:(?!\/)/.test(normal)) return "is relative to a drive's current directory; give a full path";
    if (!windowsAbsolute.test(normal)) return 'relative';
    drive = normal.slice(0, 2).toLowerCase();
    rest = normal.slice(2);
  } else if (!normal.startsWith('/')) {
    return 'relative';
  }
  const segments: string[] = [];
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      segments.pop();
      continue;
    }
    // Windows drops trailing dots and spaces from a name, so `...` or `.. ` can mean `..` there.
    if (/^[. ]+$/.test(segment)) return `has a segment made only of dots and spaces (${JSON.stringify(segment)})`;
    segments.push(segment);
  }
  return { drive, segments };
}

function isWithin(path: ParsedPath, root: ParsedPath): boolean {
  if (path.drive !== root.drive || path.segments.length < root.segments.length) return false;
  return root.segments.every((segment, index) => path.segments[index] === segment);
}

function format(path: ParsedPath): string {
  return `${path.drive === '' ? '' : path.drive.toUpperCase()}/${path.segments.join('/')}`;
}

/** Decodes `%XX` sequences as UTF-8 until nothing changes; `undefined` if still encoded after a few rounds. */
function percentDecode(text: string): string | undefined {
  let current = text;
  for (let round = 0; round < maxDecodeRounds; round += 1) {
    if (!encodedByte.test(current)) return current;
    current = current.replace(encodedRun, (run) => {
      const bytes = new Uint8Array(run.length / 3);
      for (let index = 0; index < bytes.length; index += 1) {
        bytes[index] = Number.parseInt(run.slice(index * 3 + 1, index * 3 + 3), 16);
      }
      return utf8.decode(bytes);
    });
  }
  return encodedByte.test(current) ? undefined : current;
}

/** A program-supplied string for a message: JSON-quoted, and cut short so a huge argument cannot flood the error. */
export function quote(text: string): string {
  return JSON.stringify(text.length > maxShown ? `${text.slice(0, maxShown)}…` : text);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
