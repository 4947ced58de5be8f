/**
 * The `checksum` tool: a digest of text given inline (`node:crypto`). It runs in the compute
 * child and reads no files (hash files with `shell`'s `sha256sum`).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { boundedText } from "./_compute_limits.ts";

/** Arguments of `checksum`: the text is hashed as UTF-8. */
export const ChecksumArgsSchema = z.strictObject({
  text: boundedText("text"),
  algorithm: z.enum(["sha256", "sha1", "sha512", "md5"]).default("sha256"),
  encoding: z.enum(["hex", "base64"]).default("hex"),
});

/**
 * The digest of `text` (its UTF-8 bytes) as `<algorithm>: <digest>`.
 *
 * @param _workspace unused (the compute child reaches no files)
 * @param args `{ text, algorithm?, encoding? }` (validated here)
 * @returns one line
 *
 * @example
 * ```ts
 * import { checksum } from "./_checksum.ts";
 * const out = await checksum("/", { text: "abc", algorithm: "md5" });
 * if (out !== "md5: 900150983cd24fb0d6963f7d28e17f72") throw new Error(out);
 * ```
 */
export function checksum(
  _workspace: string,
  args: Record<string, unknown>,
): string {
  const { text, algorithm, encoding } = ChecksumArgsSchema.parse(args);
  const digest = createHash(algorithm).update(text, "utf8").digest(encoding);
  return `${algorithm}: ${digest}`;
}
