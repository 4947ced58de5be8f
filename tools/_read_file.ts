/**
 * The `read_file` tool (odek-go §4.1): numbered `N|line` output, offset and limit, the total line
 * count, at most 1 MiB of output, binary files and directories refused.
 *
 * @module
 */
import { z } from "zod";
import { ToolFailure } from "./_protocol.ts";
import { resolveReadTarget } from "./_resolve_target.ts";

/** Most bytes of numbered lines one call returns (1 MiB). */
export const MAX_READ_BYTES = 1024 * 1024;
/** Bytes at the head of a file that the binary check looks at (8 KiB). */
export const BINARY_SNIFF_BYTES = 8192;

/** Arguments of `read_file`: `offset` is 1-based, `limit` at most 2000 lines. */
export const ReadFileArgsSchema = z.strictObject({
  path: z.string().min(1),
  offset: z.int().min(1).default(1),
  limit: z.int().min(1).max(2000).default(500),
});

/**
 * Read a text file of the workspace as numbered lines, followed by a line saying which lines were
 * shown out of how many and where to read on.
 *
 * @param workspace the realpathed workspace
 * @param args `{ path, offset?, limit? }` (validated here)
 * @returns the numbered lines and a trailer
 * @throws {ToolFailure} outside the workspace (`denied`), missing, a directory, not a regular
 *   file, binary (`failed`), offset past the end (`invalid_arguments`)
 *
 * @example Read two lines
 * ```ts
 * import { readFile } from "./_read_file.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "one\ntwo\n");
 *   const out = await readFile(ws, { path: "a.txt" });
 *   if (!out.startsWith("1|one\n2|two\n")) throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function readFile(
  workspace: string,
  args: Record<string, unknown>,
  roots: readonly string[] = [],
): Promise<string> {
  const { path, offset, limit } = ReadFileArgsSchema.parse(args);
  const target = await resolveReadTarget(workspace, path, roots);
  const info = await Deno.stat(target);
  if (info.isDirectory) {
    throw new ToolFailure("failed", `${path} is a directory: list it with glob (path "${path}")`);
  }
  if (!info.isFile) {
    throw new ToolFailure("failed", `${path} is not a regular file (a FIFO, socket or device)`);
  }
  const file = await Deno.open(target, { read: true });
  const head = new Uint8Array(BINARY_SNIFF_BYTES);
  let headLength = 0;
  try {
    for (let n: number | null = 0; n !== null && headLength < head.length;) {
      n = await file.read(head.subarray(headLength));
      headLength += n ?? 0;
    }
  } catch (error) {
    file.close();
    throw error;
  }
  const binary = binaryReason(head.subarray(0, headLength));
  if (binary !== null) {
    file.close();
    throw new ToolFailure("failed", `${path} looks binary (${binary}): read_file reads text only`);
  }
  await file.seek(0, Deno.SeekMode.Start);
  const encoder = new TextEncoder();
  const shown: string[] = [];
  let shownBytes = 0;
  let cutAfter = 0; // the last line shown when the 1 MiB cap cut the output
  let total = 0;
  const onLine = (raw: string) => {
    total += 1;
    if (total < offset || total >= offset + limit || cutAfter > 0) return;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    let entry = encoder.encode(`${total}|${line}\n`);
    if (shownBytes + entry.length > MAX_READ_BYTES) {
      if (shown.length > 0) {
        cutAfter = total - 1;
      } else {
        cutAfter = total;
        entry = entry.subarray(0, MAX_READ_BYTES - 64);
        shown.push(`${new TextDecoder().decode(entry)} … [line cut at 1 MiB]\n`);
      }
      return;
    }
    shownBytes += entry.length;
    shown.push(`${total}|${line}\n`);
  };
  await splitLines(file.readable, onLine);
  if (total === 0) return `(${path} is empty: 0 lines)`;
  if (offset > total) {
    throw new ToolFailure(
      "invalid_arguments",
      `offset ${offset} is past the end of ${path}, which has ${total} lines`,
    );
  }
  const last = cutAfter > 0 ? cutAfter : Math.min(total, offset + limit - 1);
  const cut = cutAfter > 0 ? "; output cut at 1 MiB" : "";
  const more = last < total ? `; read on with offset=${last + 1}` : "";
  return `${shown.join("")}[lines ${offset}-${last} of ${total} in ${path}${cut}${more}]`;
}

/** Why the head of a file looks binary (a NUL byte, or >30 % non-printable bytes), or null. */
function binaryReason(bytes: Uint8Array): string | null {
  const nul = bytes.indexOf(0);
  if (nul !== -1) return `a NUL byte at offset ${nul}`;
  let odd = 0;
  for (const b of bytes) {
    if (
      (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) || b === 0x7f
    ) odd++;
  }
  const ratio = bytes.length === 0 ? 0 : odd / bytes.length;
  return ratio > 0.3 ? `${Math.round(ratio * 100)}% non-printable bytes in the first 8 KiB` : null;
}

/** Feed every line of a byte stream to `onLine`; a line longer than 1 MiB is kept cut. */
async function splitLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  const decoder = new TextDecoder();
  let carry = "";
  let overlong = false;
  const feed = (text: string) => {
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      onLine(overlong ? carry : carry + text.slice(start, nl));
      carry = "";
      overlong = false;
      start = nl + 1;
    }
    if (!overlong) carry += text.slice(start);
    if (carry.length > MAX_READ_BYTES) [carry, overlong] = [carry.slice(0, MAX_READ_BYTES), true];
  };
  for await (const chunk of stream) feed(decoder.decode(chunk, { stream: true }));
  feed(decoder.decode());
  if (carry !== "") onLine(carry);
}
