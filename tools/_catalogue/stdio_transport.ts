/**
 * A tool child's own end of the child protocol: lines over its stdin and stdout, read and written
 * with `read()` and `write()` rather than through the `readable` and `writable` web streams of
 * `Deno.stdin` and `Deno.stdout`. The first use of those streams costs a child ~7–15 ms of start-up (Deno sets up its streams
 * machinery then), which is most of what a new file-tool scope pays beyond bwrap and an empty
 * `deno run` (docs/performance.md, "Fifth pass"). The core's end stays `streamTransport`.
 *
 * @module
 */
import { linesOf, type LineTransport } from "./line_transport.ts";

/** What {@linkcode stdioTransport} reads: `Deno.stdin`, or any reader of the same shape. */
export interface ByteReader {
  /** Read into `buffer`: the count of bytes read, or `null` at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
}

/** What {@linkcode stdioTransport} writes: `Deno.stdout`, or any writer of the same shape. */
export interface ByteWriter {
  /** Write some of `bytes`: the count written (maybe fewer than given). */
  write(bytes: Uint8Array): Promise<number>;
  /** Close it: the reader at the other end sees the end. */
  close(): void;
}

/** Bytes read at a time (a pipe's default capacity). */
const READ_BYTES = 65_536;

/**
 * A transport over a reader and a writer: `\n`-terminated UTF-8 lines as `streamTransport`
 * carries them (blank lines skipped, a last line without its newline delivered). Lines sent
 * together are written one after the other, each whole.
 *
 * @param reader lines from the core (`Deno.stdin`)
 * @param writer lines to the core (`Deno.stdout`)
 * @returns the transport; `send` rejects once the core is gone (the write fails) or after `close`
 *
 * @example
 * ```ts
 * import { stdioTransport } from "./stdio_transport.ts";
 * const chunks = ['{"a":1}\n\n{"b"', ":2}"].map((text) => new TextEncoder().encode(text));
 * const reader = {
 *   read(buffer: Uint8Array) {
 *     const next = chunks.shift();
 *     if (next === undefined) return Promise.resolve(null);
 *     buffer.set(next);
 *     return Promise.resolve(next.length);
 *   },
 * };
 * let written = "";
 * const writer = { // takes two bytes a call: send() writes the rest
 *   write(bytes: Uint8Array) {
 *     written += new TextDecoder().decode(bytes.subarray(0, 2));
 *     return Promise.resolve(Math.min(2, bytes.length));
 *   },
 *   close() {},
 * };
 * const transport = stdioTransport(reader, writer);
 * const lines: string[] = [];
 * for await (const line of transport.receive()) lines.push(line);
 * await transport.send("pong");
 * if (lines.join("|") !== '{"a":1}|{"b":2}' || written !== "pong\n") throw new Error(lines.join("|"));
 * ```
 */
export function stdioTransport(
  reader: ByteReader,
  writer: ByteWriter,
): LineTransport {
  const encoder = new TextEncoder();
  let writes: Promise<void> = Promise.resolve();
  let closed = false;
  const writeAll = async (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length;) {
      at += await writer.write(bytes.subarray(at));
    }
  };
  async function* texts(): AsyncIterable<string> {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(READ_BYTES);
    for (
      let n = await reader.read(buffer);
      n !== null;
      n = await reader.read(buffer)
    ) {
      yield decoder.decode(buffer.subarray(0, n), { stream: true });
    }
    yield decoder.decode();
  }
  return {
    send(line) {
      if (closed) return Promise.reject(new Error("The transport is closed"));
      const written = writes.then(() => writeAll(encoder.encode(`${line}\n`)));
      writes = written.catch(() => {});
      return written;
    },
    receive: () => linesOf(texts()),
    async close() {
      if (closed) return;
      closed = true;
      await writes;
      try {
        writer.close();
      } catch {
        // already closed, or the core is gone
      }
    },
  };
}
