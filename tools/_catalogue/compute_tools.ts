/**
 * The catalogue entries of the compute tools (category `compute`, served by `tools/compute.ts`,
 * a child with no permissions at all). Each is one `read` part with no targets: whatever a call
 * claims, its child can touch nothing.
 *
 * @module
 */
import { z } from "zod";
import { toolEntry } from "./tool_entry.ts";

/** Largest text argument of a compute tool, in bytes (1 MiB). */
export const MAX_COMPUTE_INPUT_BYTES = 1024 * 1024;

/** A text argument of at most 1 MiB of UTF-8 (a string longer than that in UTF-16 units is too). */
const text = (what: string) =>
  z.string().refine(
    (s) =>
      s.length <= MAX_COMPUTE_INPUT_BYTES &&
      new TextEncoder().encode(s).length <= MAX_COMPUTE_INPUT_BYTES,
    { message: `${what} is larger than 1 MiB` },
  );
const ISOLATED = "Runs isolated: it reads no files and reaches no network.";
const COMPUTES = "computes in a child with no permissions; touches nothing";

/** The compute tools, in the order the model sees them. */
export const COMPUTE_TOOLS = [
  toolEntry({
    name: "math_eval",
    category: "compute",
    handler: { module: "_math_eval.ts", export: "mathEval" },
    rule: { kind: "fixed", class: "read", detail: COMPUTES },
    classWithoutGate: "read",
    description:
      `Evaluate a math expression (mathjs syntax: + - * / ^ %, parentheses, sqrt, log, sin, pi, units like \`5 km to mile\`, matrices, statements separated by ;). ${ISOLATED}`,
    args: z.strictObject({
      expression: z.string().min(1).max(10_000),
      precision: z.int().min(1).max(64).default(14).describe("Significant digits shown"),
    }),
  }),
  toolEntry({
    name: "diff",
    category: "compute",
    handler: { module: "_diff_texts.ts", export: "diffTexts" },
    rule: { kind: "fixed", class: "read", detail: COMPUTES },
    classWithoutGate: "read",
    description:
      `Unified diff of two texts given inline (each at most 1 MiB). ${ISOLATED} To compare files, read them first or use shell \`diff -u\`.`,
    args: z.strictObject({
      old: text("old"),
      new: text("new"),
      old_name: z.string().min(1).max(200).default("old"),
      new_name: z.string().min(1).max(200).default("new"),
      context: z.int().min(0).max(50).default(3).describe("Unchanged lines around each change"),
    }),
  }),
  toolEntry({
    name: "json_query",
    category: "compute",
    handler: { module: "_json_query.ts", export: "jsonQuery" },
    rule: { kind: "fixed", class: "read", detail: COMPUTES },
    classWithoutGate: "read",
    description:
      `Query a JSON document given inline (at most 1 MiB) with a JMESPath expression (https://jmespath.org), e.g. \`items[?price > \\\`10\\\`].name\`. Returns the result as JSON. ${ISOLATED}`,
    args: z.strictObject({
      json: text("json"),
      query: z.string().min(1).max(10_000).describe("JMESPath expression"),
    }),
  }),
  toolEntry({
    name: "checksum",
    category: "compute",
    handler: { module: "_checksum.ts", export: "checksum" },
    rule: { kind: "fixed", class: "read", detail: COMPUTES },
    classWithoutGate: "read",
    description:
      `Hash text given inline (its UTF-8 bytes, at most 1 MiB) with sha256 (default), sha1, sha512 or md5. ${ISOLATED}`,
    args: z.strictObject({
      text: text("text"),
      algorithm: z.enum(["sha256", "sha1", "sha512", "md5"]).default("sha256"),
      encoding: z.enum(["hex", "base64"]).default("hex"),
    }),
  }),
  toolEntry({
    name: "base64",
    category: "compute",
    handler: { module: "_base64.ts", export: "base64" },
    rule: { kind: "fixed", class: "read", detail: COMPUTES },
    classWithoutGate: "read",
    description:
      `Encode text (UTF-8) to base64 or decode base64 to text, in the standard or URL-safe alphabet (at most 1 MiB). ${ISOLATED}`,
    args: z.strictObject({
      text: text("text"),
      action: z.enum(["encode", "decode"]),
      url_safe: z.boolean().default(false),
    }),
  }),
] as const;
