/**
 * The `base64` tool: encode text (UTF-8) to base64 or decode base64 to text, in the standard or
 * the URL-safe alphabet (RFC 4648 §4 and §5). It runs in the compute child.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { Buffer } from "node:buffer";
import { capOutput } from "./_compute_limits.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/**
 * Encode `text` or decode it. Decoding ignores whitespace, accepts missing padding, and refuses
 * characters outside the chosen alphabet and results that are not valid UTF-8 (binary data
 * cannot be shown as text).
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param _context unused (the compute child reaches no files)
 * @returns the encoded or decoded text
 * @throws {ToolFailure} `invalid_arguments` for input that is not base64 of that alphabet, or
 *   decodes to bytes that are not UTF-8 text; `failed` for a result over 1 MiB
 *
 * @example
 * ```ts
 * import { base64 } from "./_base64.ts";
 * if (await base64({ text: "hi?", action: "encode", url_safe: true }) !== "aGk_") throw new Error();
 * if (await base64({ text: "aGk/", action: "decode", url_safe: false }) !== "hi?") throw new Error();
 * ```
 */
export function base64(
  args: ToolArgs<"base64">,
  _context?: ToolContext,
): string {
  const { text, action, url_safe } = args;
  if (action === "encode") {
    const encoded = Buffer.from(text, "utf8").toString(
      url_safe ? "base64url" : "base64",
    );
    return capOutput("base64", encoded);
  }
  const compact = text.replace(/\s+/g, "");
  const alphabet = url_safe ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/;
  if (!alphabet.test(compact) || compact.replace(/=+$/, "").length % 4 === 1) {
    throw new ToolFailure(
      "invalid_arguments",
      `text is not ${url_safe ? "URL-safe " : ""}base64${
        url_safe ? "" : " (for the URL-safe alphabet with - and _, set url_safe)"
      }`,
    );
  }
  const bytes = Buffer.from(compact, url_safe ? "base64url" : "base64");
  try {
    return capOutput(
      "base64",
      new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    );
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    throw new ToolFailure(
      "invalid_arguments",
      `The decoded ${bytes.length} bytes are not UTF-8 text: base64 decodes to text only`,
    );
  }
}
