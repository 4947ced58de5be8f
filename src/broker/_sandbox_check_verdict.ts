/**
 * What a bwrap sandbox's check said, read from the head of its stderr (private to `broker/`): the
 * one reader of `SANDBOX_CHECK_PASSED` and `SANDBOX_CHECK_MARKER`. See docs/security.md, "Races".
 *
 * @module
 */
import { SANDBOX_CHECK_MARKER, SANDBOX_CHECK_PASSED } from "./_sandbox_check.ts";

/**
 * The check's word: `passed` (the program ran; what follows is its own), `refused` (the check
 * failed, nothing of the call ran; `reason` is the check's line), or `unchecked` (stderr starts
 * with neither: bwrap or the launcher failed before the check, or the stream ended first).
 */
export type CheckVerdict =
  | { type: "passed" }
  | { type: "refused"; reason: string }
  | { type: "unchecked" };

const PASSED = new TextEncoder().encode(SANDBOX_CHECK_PASSED);
const MARKER = new TextEncoder().encode(SANDBOX_CHECK_MARKER);
/** The check's failure line is one `echo`: a line longer than this is not waited for. */
const MAX_LINE = 4096;

/**
 * A `TransformStream` over a checked sandbox's stderr (one whose `RenderedSandbox.check` is
 * true): it reads the check's word from the first bytes, sets {@linkcode verdict}, and passes
 * everything on but the `passed` token. The check writes its word before the program starts, so
 * only the check can put the marker first: a program's own output never makes a refusal, and it
 * is passed on byte for byte (the marker included, wherever it prints it).
 *
 * @example Read a sandbox's stderr
 * ```ts
 * import { SandboxCheckVerdict } from "./_sandbox_check_verdict.ts";
 * const check = new SandboxCheckVerdict();
 * const bytes = new TextEncoder().encode("odek: sandbox check passed\nwarning\n");
 * const text = await new Response(ReadableStream.from([bytes]).pipeThrough(check)).text();
 * if (text !== "warning\n" || check.verdict?.type !== "passed") throw new Error(text);
 * ```
 */
export class SandboxCheckVerdict extends TransformStream<Uint8Array, Uint8Array> {
  #verdict: CheckVerdict | undefined;

  constructor() {
    let head: Uint8Array = new Uint8Array(0);
    super({
      transform: (chunk, controller) => {
        if (this.#verdict !== undefined) return controller.enqueue(chunk);
        head = head.length === 0 ? chunk : concat(head, chunk);
        const decided = decide(head, false);
        if (decided === undefined) return;
        this.#verdict = decided.verdict;
        if (decided.rest.length > 0) controller.enqueue(decided.rest);
      },
      flush: (controller) => {
        if (this.#verdict !== undefined) return;
        const decided = decide(head, true)!;
        this.#verdict = decided.verdict;
        if (decided.rest.length > 0) controller.enqueue(decided.rest);
      },
    });
  }

  /** The check's word, once the first bytes (or the end) were read; `undefined` before. */
  get verdict(): CheckVerdict | undefined {
    return this.#verdict;
  }

  /**
   * The same reading of a whole stderr already read (a log file's head, a probe's output).
   *
   * @param bytes the stderr from its first byte
   * @returns the check's word and the bytes without the `passed` token
   */
  static of(bytes: Uint8Array): { verdict: CheckVerdict; rest: Uint8Array } {
    return decide(bytes, true)!;
  }
}

/** The word of `head` (the first bytes), or `undefined` while more bytes could change it. */
function decide(
  head: Uint8Array,
  ended: boolean,
): { verdict: CheckVerdict; rest: Uint8Array } | undefined {
  if (startsWith(head, PASSED)) {
    return { verdict: { type: "passed" }, rest: head.subarray(PASSED.length) };
  }
  if (startsWith(head, MARKER)) {
    const end = head.indexOf(10);
    if (end === -1 && !ended && head.length < MAX_LINE) return undefined;
    const reason = new TextDecoder().decode(head.subarray(0, end === -1 ? MAX_LINE : end));
    return { verdict: { type: "refused", reason }, rest: head };
  }
  const partial = startsWith(PASSED, head) || startsWith(MARKER, head);
  if (partial && !ended) return undefined;
  return { verdict: { type: "unchecked" }, rest: head };
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
