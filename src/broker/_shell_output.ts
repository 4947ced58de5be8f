/**
 * Capped collection and model-facing formatting of a program's output (odek-go §4.1: stdout and
 * stderr 1 MiB each, `(no output)` when both are empty).
 *
 * @module
 */

/** One collected stream: the kept head, decoded, and how many bytes were dropped after it. */
export interface CappedText {
  text: string;
  dropped: number;
}

/**
 * Read a byte stream to its end, keeping at most `maxBytes` of its head.
 *
 * @param stream the stream (a web `ReadableStream` or a Node `Readable`)
 * @param maxBytes most bytes kept
 * @returns the kept head as UTF-8 text and the number of bytes dropped
 *
 * @example Keep the head
 * ```ts
 * import { collectCapped } from "./_shell_output.ts";
 * const bytes = new TextEncoder().encode("abcdef");
 * const { text, dropped } = await collectCapped(ReadableStream.from([bytes]), 4);
 * if (text !== "abcd" || dropped !== 2) throw new Error(`${text} ${dropped}`);
 * ```
 */
export async function collectCapped(
  stream: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<CappedText> {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let dropped = 0;
  for await (const chunk of stream) {
    const room = Math.max(0, maxBytes - kept);
    if (room > 0) {
      const part = chunk.subarray(0, room);
      chunks.push(part);
      kept += part.length;
    }
    dropped += chunk.length - Math.min(room, chunk.length);
  }
  const all = new Uint8Array(kept);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return { text: new TextDecoder().decode(all), dropped };
}

/**
 * The text the model reads: a header line, then `stdout:` and `stderr:` sections (empty ones
 * omitted, `(no output)` when both are empty), each saying how many bytes were dropped.
 *
 * @param header e.g. `exit code 1 · 12 ms`
 * @param stdout collected stdout
 * @param stderr collected stderr
 * @param maxBytes the cap, named in the truncation note
 * @returns the formatted text
 *
 * @example Format a run
 * ```ts
 * import { formatShellOutput } from "./_shell_output.ts";
 * const text = formatShellOutput("exit code 0 · 3 ms", { text: "x\n", dropped: 0 }, { text: "", dropped: 0 }, 1024);
 * if (text !== "exit code 0 · 3 ms\nstdout:\nx\n") throw new Error(text);
 * ```
 */
export function formatShellOutput(
  header: string,
  stdout: CappedText,
  stderr: CappedText,
  maxBytes: number,
): string {
  let text = `${header}\n`;
  for (const [name, stream] of [["stdout", stdout], ["stderr", stderr]] as const) {
    if (stream.text === "" && stream.dropped === 0) continue;
    text += `${name}:\n${stream.text}`;
    if (!text.endsWith("\n")) text += "\n";
    if (stream.dropped > 0) {
      text +=
        `[${stream.dropped} more bytes of ${name} dropped: each stream keeps its first ${maxBytes} bytes]\n`;
    }
  }
  return stdout.text === "" && stderr.text === "" && stdout.dropped + stderr.dropped === 0
    ? `${text}(no output)\n`
    : text;
}
