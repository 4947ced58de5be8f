/**
 * The `checksum` tool: a digest of text given inline (`node:crypto`). It runs in the compute
 * child and reads no files (hash files with `shell`'s `sha256sum`).
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { createHash } from "node:crypto";

/**
 * The digest of `text` (its UTF-8 bytes) as `<algorithm>: <digest>`.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param _context unused (the compute child reaches no files)
 * @returns one line
 *
 * @example
 * ```ts
 * import { checksum } from "./_checksum.ts";
 * const out = await checksum({ text: "abc", algorithm: "md5", encoding: "hex" });
 * if (out !== "md5: 900150983cd24fb0d6963f7d28e17f72") throw new Error(out);
 * ```
 */
export function checksum(
  args: ToolArgs<"checksum">,
  _context?: ToolContext,
): string {
  const { text, algorithm, encoding } = args;
  const digest = createHash(algorithm).update(text, "utf8").digest(encoding);
  return `${algorithm}: ${digest}`;
}
