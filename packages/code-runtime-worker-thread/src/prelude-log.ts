import type { PreludeIntrinsics } from './prelude-intrinsics.js';

/** Writes a run's log lines into the buffer the worker shares with the host. */
export interface PreludeLogWriter {
  /** Writes `text` at `level` (1 log, 2 info, 3 debug, 4 warn, 5 error), one line per newline. */
  write(level: number, text: string): void;
  /** Leaves the marker of host call `id` in the stream. */
  marker(id: number): void;
  /** Where the next line will go; also published in the buffer's header. */
  position(): number;
}

/**
 * The in-context log writer. Serialised with `Function.prototype.toString` into the run's context:
 * self-contained, strict, no imports. The buffer is held here only; the program never sees it.
 * Each line is a level unit, the UTF-16 text and a newline; the new end is then published with
 * `Atomics.store`, so the host can read every complete line even after killing the worker.
 */
export function makeLogWriter(
  intrinsics: PreludeIntrinsics,
  buffer: SharedArrayBuffer,
  logBytes: number,
): PreludeLogWriter {
  const { apply, charCodeAt, indexOf, stringSlice, atomicsStore } = intrinsics;
  const logHeader = new intrinsics.Int32Array(buffer, 0, 4);
  const logData = new intrinsics.Uint16Array(buffer, 16);
  let logPosition = 0;
  let logSentBytes = 0;
  let logsCut = false;
  atomicsStore(logHeader, 0, 0);

  function writeLine(level: number, line: string): void {
    if (logsCut) return;
    const remaining = logBytes - logSentBytes;
    let bytes = 1;
    let length = line.length;
    for (let index = 0; index < length; index += 1) {
      const code = apply(charCodeAt, line, [index]);
      if (code < 0x80) bytes += 1;
      else if (code < 0x800) bytes += 2;
      else if (code >= 0xd800 && code <= 0xdbff) {
        const next = apply(charCodeAt, line, [index + 1]);
        if (next >= 0xdc00 && next <= 0xdfff) {
          bytes += 4;
          index += 1;
        } else bytes += 3;
      } else bytes += 3;
    }
    // The line that crosses the budget goes out cut (but still crossing), so the host's own
    // budget cuts it exactly and adds the notice; nothing is sent after it.
    if (bytes > remaining) {
      logsCut = true;
      if (length > remaining + 1) length = remaining + 1;
    }
    if (logPosition + length + 2 > logData.length) {
      logsCut = true;
      return;
    }
    logData[logPosition] = level;
    for (let index = 0; index < length; index += 1) logData[logPosition + 1 + index] = apply(charCodeAt, line, [index]);
    logData[logPosition + 1 + length] = 10;
    logPosition += length + 2;
    logSentBytes += bytes;
    atomicsStore(logHeader, 0, logPosition);
  }

  // A call leaves a marker in the log stream, so the host, reading lines while the program is
  // still running, never shows a line before the call that came first.
  function writeMarker(id: number): void {
    const digits = `${id}`;
    if (logPosition + digits.length + 2 > logData.length) return;
    logData[logPosition] = 6;
    for (let index = 0; index < digits.length; index += 1) {
      logData[logPosition + 1 + index] = apply(charCodeAt, digits, [index]);
    }
    logData[logPosition + 1 + digits.length] = 10;
    logPosition += digits.length + 2;
    atomicsStore(logHeader, 0, logPosition);
  }

  function writeLog(level: number, text: string): void {
    let start = 0;
    for (;;) {
      const end = apply(indexOf, text, ['\n', start]);
      if (end === -1) {
        writeLine(level, start === 0 ? text : apply(stringSlice, text, [start]));
        return;
      }
      writeLine(level, apply(stringSlice, text, [start, end]));
      start = end + 1;
    }
  }

  return { write: writeLog, marker: writeMarker, position: () => logPosition };
}
