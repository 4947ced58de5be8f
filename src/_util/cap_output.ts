/**
 * The cap on what one tool result may put into the transcript: a head and a tail of the text,
 * with a marker saying how much was left out of the middle (odek-go §12.10 keeps 3 KB + 1 KB of
 * 4 KB; odek keeps more because the model often needs the end of a build log and the start of a
 * file alike).
 *
 * @module
 */

/** Sizes of the cap, in bytes of UTF-8. */
export interface CapLimits {
  /** Text up to this many bytes is kept whole. @default 16384 */
  maxBytes: number;
  /** Bytes kept from the start of a longer text. @default 12288 */
  headBytes: number;
  /** Bytes kept from its end. @default 4096 */
  tailBytes: number;
}

/** The default cap: 16 KiB, of which 12 KiB head and 4 KiB tail. */
export const DEFAULT_CAP_LIMITS: Readonly<CapLimits> = {
  maxBytes: 16_384,
  headBytes: 12_288,
  tailBytes: 4_096,
};

/** What {@linkcode capOutput} returns. */
export interface CappedOutput {
  /** The text, or its head, the marker and its tail. */
  text: string;
  /** Bytes left out (0 when the text was kept whole). */
  omittedBytes: number;
  /** Line breaks in the part left out. */
  omittedLines: number;
}

/** A cut moves at most this far (bytes) to land after a line break. */
const LINE_SLACK = 1024;

/**
 * Keep `text` whole when it has at most `maxBytes` bytes of UTF-8; otherwise keep about
 * `headBytes` from its start and `tailBytes` from its end, joined by a marker line
 * `[odek: <n> bytes (<m> lines) omitted from the middle of this output]`. Cuts never split a
 * UTF-8 character, and move back (head) or forward (tail) by up to 1 KiB to land just after a
 * line break, so the head and tail hold whole lines where lines are short. Head bytes + omitted
 * bytes + tail bytes always equal the input's bytes.
 *
 * @param text the output
 * @param limits the sizes; `headBytes + tailBytes` must not exceed `maxBytes`
 * @returns the capped text and what was left out
 * @throws {RangeError} when a limit is negative or `headBytes + tailBytes > maxBytes`
 *
 * @example A long output keeps its ends
 * ```ts
 * import { capOutput } from "./cap_output.ts";
 * const text = "a".repeat(100) + "b".repeat(100);
 * const out = capOutput(text, { maxBytes: 50, headBytes: 10, tailBytes: 10 });
 * if (out.omittedBytes !== 180) throw new Error(String(out.omittedBytes));
 * if (!out.text.startsWith("aaaaaaaaaa\n[odek: 180 bytes") || !out.text.endsWith("\nbbbbbbbbbb")) {
 *   throw new Error(out.text);
 * }
 * ```
 */
export function capOutput(text: string, limits: CapLimits): CappedOutput {
  const { maxBytes, headBytes, tailBytes } = limits;
  if (Math.min(maxBytes, headBytes, tailBytes) < 0 || headBytes + tailBytes > maxBytes) {
    throw new RangeError(
      `Cannot cap output with maxBytes ${maxBytes}, headBytes ${headBytes}, tailBytes ${tailBytes}: the limits must be non-negative and headBytes + tailBytes must not exceed maxBytes`,
    );
  }
  // A UTF-16 length within the limit is at most 3 bytes per unit: skip encoding small texts.
  if (text.length * 3 <= maxBytes) return { text, omittedBytes: 0, omittedLines: 0 };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, omittedBytes: 0, omittedLines: 0 };
  let headEnd = headBytes;
  while (headEnd > 0 && (bytes[headEnd] & 0xc0) === 0x80) headEnd--;
  const headBreak = bytes.subarray(Math.max(0, headEnd - LINE_SLACK), headEnd).lastIndexOf(0x0a);
  if (headBreak !== -1) headEnd = Math.max(0, headEnd - LINE_SLACK) + headBreak + 1;
  let tailStart = bytes.length - tailBytes;
  while (tailStart < bytes.length && (bytes[tailStart] & 0xc0) === 0x80) tailStart++;
  const tailBreak = bytes.subarray(tailStart - 1, Math.min(bytes.length, tailStart + LINE_SLACK))
    .indexOf(0x0a);
  if (tailBreak !== -1 && tailStart - 1 + tailBreak + 1 < bytes.length) {
    tailStart = tailStart + tailBreak;
  }
  const middle = bytes.subarray(headEnd, tailStart);
  let omittedLines = 0;
  for (const byte of middle) if (byte === 0x0a) omittedLines++;
  const decoder = new TextDecoder();
  const head = decoder.decode(bytes.subarray(0, headEnd));
  const tail = decoder.decode(bytes.subarray(tailStart));
  const marker =
    `[odek: ${middle.length} bytes (${omittedLines} lines) omitted from the middle of this output]`;
  const before = head === "" || head.endsWith("\n") ? "" : "\n";
  const after = tail === "" ? "" : "\n";
  return {
    text: `${head}${before}${marker}${after}${tail}`,
    omittedBytes: middle.length,
    omittedLines,
  };
}
