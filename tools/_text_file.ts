/**
 * Opening a workspace file as text, shared by `read_file`, `head_tail`, `patch`, `file_info` and
 * `search_files`: regular files only, and a binary check on the first 8 KiB (odek-go §4.1: a NUL
 * byte or more than 30 % control bytes; and here also invalid UTF-8).
 *
 * @module
 */
import { openVerified } from "./_open_verified.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import type { ByteReader } from "./_catalogue/stdio_transport.ts";

/** Bytes at the head of a file that the binary check looks at (8 KiB). */
export const BINARY_SNIFF_BYTES = 8192;
/** Bytes read at a time from a file (`splitLines`). */
const READ_BYTES = 65_536;

/** Longest line kept whole by {@linkcode splitLines}, in UTF-16 code units (1 Mi). */
export const MAX_LINE_CHARS = 1024 * 1024;

/**
 * Why bytes from the head of a file look binary, or `null` for text: a NUL byte, invalid UTF-8
 * (a multi-byte character cut by the end of `bytes` is fine unless `complete`), or more than
 * 30 % control bytes other than tab, newline, carriage return, form feed and escape.
 *
 * @param bytes the head of the file (at most 8 KiB are looked at)
 * @param complete whether `bytes` is the whole file
 * @returns the reason, or `null`
 *
 * @example
 * ```ts
 * import { binaryReason } from "./_text_file.ts";
 * if (binaryReason(new Uint8Array([104, 0]), true) !== "a NUL byte at offset 1") throw new Error();
 * if (binaryReason(new Uint8Array([0xff, 0xfe, 0x41]), true) !== "invalid UTF-8") throw new Error();
 * if (binaryReason(new TextEncoder().encode("héllo"), true) !== null) throw new Error();
 * ```
 */
export function binaryReason(
  bytes: Uint8Array,
  complete: boolean,
): string | null {
  const head = bytes.subarray(0, BINARY_SNIFF_BYTES);
  const nul = head.indexOf(0);
  if (nul !== -1) return `a NUL byte at offset ${nul}`;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, {
      stream: !complete || bytes.length > head.length,
    });
  } catch {
    return "invalid UTF-8";
  }
  let odd = 0;
  for (const b of head) {
    if (
      (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c &&
        b !== 0x1b) || b === 0x7f
    ) odd++;
  }
  const ratio = head.length === 0 ? 0 : odd / head.length;
  return ratio > 0.3 ? `${Math.round(ratio * 100)}% control bytes in the first 8 KiB` : null;
}

/** An open text file, positioned at its start. Close it (`using`) when done. */
export interface OpenTextFile extends Disposable {
  file: Deno.FsFile;
  /** Size in bytes when opened. */
  size: number;
}

/**
 * Open an already realpathed, contained target as text: a regular file whose first 8 KiB pass
 * {@linkcode binaryReason}, opened with `openVerified` (a link swapped in after the check is
 * refused, never read).
 *
 * @param target the real path (checked to be inside the workspace by the caller)
 * @param shown the path as the model wrote it, for messages
 * @param tool the calling tool, for messages
 * @returns the open file at offset 0 and its size
 * @throws {ToolFailure} `failed` for a directory, a FIFO/socket/device, or a binary file (the
 *   message gives the reason, the size and what to use instead); `denied` when it was swapped
 *   for a link meanwhile; Deno and OS errors propagate
 *
 * @example
 * ```ts
 * import { openTextFile } from "./_text_file.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await Deno.writeTextFile(`${dir}/a.txt`, "hi\n");
 *   using text = await openTextFile(`${dir}/a.txt`, "a.txt", "read_file");
 *   if (text.size !== 3) throw new Error("wrong size");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function openTextFile(
  target: string,
  shown: string,
  tool: string,
): Promise<OpenTextFile> {
  const checked = await Deno.lstat(target);
  if (checked.isDirectory) {
    throw new ToolFailure(
      "failed",
      `${shown} is a directory: list it with glob or tree (path "${shown}")`,
    );
  }
  if (!checked.isFile && !checked.isSymlink) {
    throw new ToolFailure(
      "failed",
      `${shown} is not a regular file (a FIFO, socket or device)`,
    );
  }
  // Opened, then verified: a link swapped in after the realpath check is refused (issue 12).
  const { file, info } = await openVerified(target, shown);
  try {
    const head = new Uint8Array(BINARY_SNIFF_BYTES);
    let length = 0;
    for (let n: number | null = 0; n !== null && length < head.length;) {
      n = await file.read(head.subarray(length));
      length += n ?? 0;
    }
    const reason = binaryReason(head.subarray(0, length), length < head.length);
    if (reason !== null) {
      throw new ToolFailure(
        "failed",
        `${shown} looks binary (${reason}; ${info.size} bytes): ${tool} handles text only. ` +
          `Use file_info for its type and size, or the shell (file, xxd, od) to inspect it`,
      );
    }
    await file.seek(0, Deno.SeekMode.Start);
    return {
      file,
      size: info.size,
      [Symbol.dispose]: () => closeQuietly(file),
    };
  } catch (error) {
    closeQuietly(file);
    throw error;
  }
}

/**
 * Feed every line of a byte stream to `onLine` (without its `\n`; a trailing `\r` is kept); a
 * line longer than {@linkcode MAX_LINE_CHARS} is cut to that length. Return `false` from
 * `onLine` to stop reading.
 *
 * @param source the bytes (UTF-8): a stream, or an open file read with `read()` (which spares a
 *   child's first call the set-up of Deno's web streams, ~7–15 ms; the caller closes the file)
 * @param onLine called once per line, in order
 *
 * @example
 * ```ts
 * import { splitLines } from "./_text_file.ts";
 * const lines: string[] = [];
 * await splitLines(ReadableStream.from([new TextEncoder().encode("a\nb")]), (l) => void lines.push(l));
 * if (lines.join(",") !== "a,b") throw new Error(lines.join(","));
 * ```
 */
export async function splitLines(
  source: ReadableStream<Uint8Array> | ByteReader,
  onLine: (line: string) => boolean | void,
): Promise<void> {
  const decoder = new TextDecoder();
  let carry = "";
  let overlong = false;
  let stopped = false;
  const feed = (text: string) => {
    let start = 0;
    for (
      let nl = text.indexOf("\n");
      nl !== -1 && !stopped;
      nl = text.indexOf("\n", start)
    ) {
      stopped = onLine(overlong ? carry : carry + text.slice(start, nl)) === false;
      carry = "";
      overlong = false;
      start = nl + 1;
    }
    if (!overlong) carry += text.slice(start);
    if (carry.length > MAX_LINE_CHARS) {
      [carry, overlong] = [carry.slice(0, MAX_LINE_CHARS), true];
    }
  };
  if ("getReader" in source) {
    const reader = source.getReader();
    try {
      while (!stopped) {
        const { done, value } = await reader.read();
        if (done) break;
        feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      if (stopped) await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  } else {
    const buffer = new Uint8Array(READ_BYTES);
    for (let n = await source.read(buffer); n !== null && !stopped; n = await source.read(buffer)) {
      feed(decoder.decode(buffer.subarray(0, n), { stream: true }));
    }
  }
  if (stopped) return;
  feed(decoder.decode());
  if (carry !== "") onLine(carry);
}

function closeQuietly(file: Deno.FsFile): void {
  try {
    file.close();
  } catch {
    // already closed (its readable stream was consumed)
  }
}
