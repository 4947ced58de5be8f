/**
 * The specs of the compute tools (category `compute`, served by `tools/compute.ts`, a child with
 * no permissions at all): what the model is told and the zod schemas checked in the core.
 *
 * @module
 */
import { z } from "zod";
import type { BuiltinTool } from "./builtin_tools.ts";

/** Largest text argument of a compute tool, in bytes (1 MiB). */
export const MAX_COMPUTE_INPUT_BYTES = 1024 * 1024;

const text = (what: string) =>
  z.string().refine((s) => new TextEncoder().encode(s).length <= MAX_COMPUTE_INPUT_BYTES, {
    message: `${what} is larger than 1 MiB`,
  });
const ISOLATED = "Runs isolated: it reads no files and reaches no network.";

/** The compute tools, in the order the model sees them. */
export const COMPUTE_TOOL_SPECS: readonly BuiltinTool[] = [
  {
    name: "math_eval",
    category: "compute",
    description:
      `Evaluate a math expression (mathjs syntax: + - * / ^ %, parentheses, sqrt, log, sin, pi, units like \`5 km to mile\`, matrices, statements separated by ;). ${ISOLATED}`,
    schema: z.strictObject({
      expression: z.string().min(1).max(10_000),
      precision: z.int().min(1).max(64).default(14).describe("Significant digits shown"),
    }),
  },
  {
    name: "diff",
    category: "compute",
    description:
      `Unified diff of two texts given inline (each at most 1 MiB). ${ISOLATED} To compare files, read them first or use shell \`diff -u\`.`,
    schema: z.strictObject({
      old: text("old"),
      new: text("new"),
      old_name: z.string().min(1).max(200).default("old"),
      new_name: z.string().min(1).max(200).default("new"),
      context: z.int().min(0).max(50).default(3).describe("Unchanged lines around each change"),
    }),
  },
  {
    name: "json_query",
    category: "compute",
    description:
      `Query a JSON document given inline (at most 1 MiB) with a JMESPath expression (https://jmespath.org), e.g. \`items[?price > \\\`10\\\`].name\`. Returns the result as JSON. ${ISOLATED}`,
    schema: z.strictObject({
      json: text("json"),
      query: z.string().min(1).max(10_000).describe("JMESPath expression"),
    }),
  },
  {
    name: "checksum",
    category: "compute",
    description:
      `Hash text given inline (its UTF-8 bytes, at most 1 MiB) with sha256 (default), sha1, sha512 or md5. ${ISOLATED}`,
    schema: z.strictObject({
      text: text("text"),
      algorithm: z.enum(["sha256", "sha1", "sha512", "md5"]).default("sha256"),
      encoding: z.enum(["hex", "base64"]).default("hex"),
    }),
  },
  {
    name: "base64",
    category: "compute",
    description:
      `Encode text (UTF-8) to base64 or decode base64 to text, in the standard or URL-safe alphabet (at most 1 MiB). ${ISOLATED}`,
    schema: z.strictObject({
      text: text("text"),
      action: z.enum(["encode", "decode"]),
      url_safe: z.boolean().default(false),
    }),
  },
];
