/**
 * The file-tool child's check of a call's arguments without zod, and where each file tool's
 * handler is (the one list: `file_tools.ts` takes its entries' handlers from here).
 *
 * A new file-tool scope is a new child, and importing zod for the first call's schema was
 * 14–24 ms of it (docs/performance.md, "A new file-tool scope"). The core has already validated
 * the arguments with the catalogue's schema and sends zod's output (defaults filled), so nearly
 * every call is well formed; but the child never acts on arguments the tool's schema refuses.
 * So {@linkcode FileToolCheck.check} only ever says yes to arguments the entry's schema accepts,
 * and then returns exactly what the schema's `parse` returns; for anything else it says "not
 * sure" and the child checks them with the schema itself (loading zod then), so bad arguments
 * are refused exactly as before, with zod's description of what is wrong.
 * `tests/catalogue/file_args_check_test.ts` checks that agreement, against `FILE_TOOLS`'s
 * schemas, on valid arguments and on thousands of mutated ones.
 *
 * @module
 */
import type { HandlerRef } from "./tool_entry.ts";

/** A file tool as its child knows it before zod: its handler and the fast check. */
export interface FileToolCheck {
  /** The tool name, e.g. `read_file`. */
  readonly name: string;
  /** Where the child finds its handler. */
  readonly handler: HandlerRef;
  /**
   * The arguments as the tool's schema parses them, when they certainly pass it; `undefined`
   * when they may not (then only the schema can tell).
   */
  check(args: Record<string, unknown>): Record<string, unknown> | undefined;
}

/** Largest content the file tools accept, in UTF-8 bytes (1 MiB; `MAX_FILE_CONTENT_BYTES`). */
const MAX_BYTES = 1024 * 1024;
/** A string of at most this many UTF-16 units is at most 1 MiB of UTF-8 (3 bytes a unit). */
const SURELY_FITS = Math.floor(MAX_BYTES / 3);

type Field = (value: unknown) => boolean;

const text = (min: number, max: number): Field => (v) =>
  typeof v === "string" && v.length >= min && v.length <= max;
const int = (min: number, max: number): Field => (v) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
const fits = (min: number): Field => (v) =>
  typeof v === "string" && v.length >= min &&
  (v.length <= SURELY_FITS || new TextEncoder().encode(v).length <= MAX_BYTES);
const oneOf = (...values: unknown[]): Field => (v) => values.includes(v);
const bool: Field = (v) => typeof v === "boolean";
const path = text(1, 4096);

/** A field of a strict object: its check, and its default (`undefined`: required, or optional). */
type Shape = Record<string, { ok: Field; default?: unknown; optional?: true }>;

/** The arguments of a strict object with this shape, parsed; `undefined` when unsure. */
function strictObject(
  shape: Shape,
  args: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (Object.getPrototypeOf(args) !== Object.prototype) return undefined;
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(shape, key)) return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    if (!Object.hasOwn(args, key)) {
      if (field.default !== undefined) out[key] = field.default;
      else if (!field.optional) return undefined;
      continue;
    }
    const value = args[key];
    if (!field.ok(value)) return undefined;
    out[key] = value;
  }
  return out;
}

function tool(
  name: string,
  handler: HandlerRef,
  shape: Shape,
  refine: (args: Record<string, unknown>) => boolean = () => true,
): FileToolCheck {
  return {
    name,
    handler,
    check: (args) => {
      const parsed = strictObject(shape, args);
      return parsed !== undefined && refine(parsed) ? parsed : undefined;
    },
  };
}

/** The file tools' handlers, by tool name. */
export const FILE_TOOL_HANDLERS = {
  read_file: { module: "_read_file.ts", export: "readFile" },
  write_file: { module: "_write_file.ts", export: "writeFile" },
  patch: { module: "_patch.ts", export: "patch" },
  search_files: { module: "_search_files.ts", export: "searchFiles" },
  glob: { module: "_glob.ts", export: "glob" },
  file_info: { module: "_file_info.ts", export: "fileInfo" },
  tree: { module: "_tree.ts", export: "tree" },
  head_tail: { module: "_head_tail.ts", export: "headTail" },
} as const satisfies Record<string, HandlerRef>;

const h = FILE_TOOL_HANDLERS;

/**
 * The fast checks of the file tools, one per entry of `FILE_TOOLS` (same names, same handlers).
 *
 * @example
 * ```ts
 * import { FILE_ARGS_CHECKS } from "./file_args_check.ts";
 * const read = FILE_ARGS_CHECKS.find((t) => t.name === "read_file")!;
 * const args = read.check({ path: "a.txt" });
 * if (args?.offset !== 1 || args.limit !== 500) throw new Error(JSON.stringify(args));
 * if (read.check({ path: "a.txt", limit: 5000 }) !== undefined) throw new Error("over the cap");
 * ```
 */
export const FILE_ARGS_CHECKS: readonly FileToolCheck[] = [
  tool("read_file", h.read_file, {
    path: { ok: path },
    offset: { ok: int(1, Number.MAX_SAFE_INTEGER), default: 1 },
    limit: { ok: int(1, 2000), default: 500 },
  }),
  tool("write_file", h.write_file, {
    path: { ok: path },
    content: { ok: fits(0) },
  }),
  tool(
    "patch",
    h.patch,
    {
      path: { ok: path },
      old_string: { ok: fits(1), optional: true },
      new_string: { ok: fits(0), optional: true },
      diff: { ok: fits(1), optional: true },
    },
    (a) =>
      a.diff !== undefined
        ? a.old_string === undefined && a.new_string === undefined
        : a.old_string !== undefined && a.new_string !== undefined,
  ),
  tool("search_files", h.search_files, {
    pattern: { ok: text(1, 1000) },
    path: { ok: path, default: "." },
    include: { ok: text(1, 1000), optional: true },
    ignore_case: { ok: bool, default: false },
    max_results: { ok: int(1, 500), default: 100 },
  }),
  tool("glob", h.glob, {
    pattern: { ok: text(1, 1024) },
    path: { ok: path, default: "." },
  }),
  tool("file_info", h.file_info, { path: { ok: path } }),
  tool("tree", h.tree, {
    path: { ok: path, default: "." },
    depth: { ok: int(1, 10), default: 3 },
    max_entries: { ok: int(1, 1000), default: 500 },
  }),
  tool("head_tail", h.head_tail, {
    path: { ok: path },
    from: { ok: oneOf("head", "tail"), default: "head" },
    lines: { ok: int(1, 2000), default: 20 },
  }),
];
