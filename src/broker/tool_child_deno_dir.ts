/**
 * Where a catalogue tool child (`tools/files.ts`, `compute.ts`, `web.ts`) keeps its Deno cache:
 * a `DENO_DIR` of its own, `<toolsDir>/.deno_cache/<entry name>`, read-only inside its sandbox.
 *
 * Why not the user's `DENO_DIR`: a sandboxed child cannot write its cache, so it can only use
 * what was written before, with its exact flags. Deno's V8 code cache is rejected when the V8
 * flags differ (a child runs with `LINEAR_REGEXP_FALLBACK_FLAG`, the core without), and the core
 * and every other deno on the machine rewrite the shared entries (Deno's own `ext:` modules, the
 * catalogue's files) for their own flags; the handler modules, which no core ever loads, were not
 * transpiled at all. A new file-tool scope then paid ~150–250 ms of compiling on every start. Setup
 * (`scripts/warm_tool_children.ts`) fills each child's own cache by starting it with the flags
 * `renderSandbox` gives it and sending `preload`; unsandboxed children (`sandbox: none`, the
 * tests) use it in place and keep it current. A child that finds no cache still runs (Deno
 * compiles in memory then), only slower. Module-tool children keep the user's `DENO_DIR`: they
 * import npm packages from its global cache.
 *
 * Inside bwrap the cache folder is read-only, and Deno cannot open its SQLite caches (the V8 code
 * cache, the module and CommonJS analyses: WAL databases) in a folder it cannot write unless
 * another process holds them open. So a sandboxed child runs with `DENO_DIR` set to
 * {@linkcode SANDBOX_DENO_DIR} in its private `/tmp`: bwrap creates it with `gen` (the transpiled
 * modules, read-only) linked to the cache's, and copies the SQLite files there (about 1.3 MB)
 * from descriptors the launcher opened ({@linkcode CACHE_OPENER}), before anything runs in the
 * sandbox. What the child writes there is discarded with its sandbox.
 *
 * @module
 */
import { basename } from "node:path";

/** The folder of `toolsDir` that holds the catalogue children's caches. */
export const TOOL_CHILD_CACHE_FOLDER = ".deno_cache";

/**
 * The `DENO_DIR` of a catalogue tool child.
 *
 * @param toolsDir the realpathed `tools/` folder
 * @param entry the child's program, e.g. `<toolsDir>/files.ts`
 * @returns `<toolsDir>/.deno_cache/<entry name without .ts>`
 *
 * @example
 * ```ts
 * import { toolChildDenoDir } from "./tool_child_deno_dir.ts";
 * if (toolChildDenoDir("/o/tools", "/o/tools/files.ts") !== "/o/tools/.deno_cache/files") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function toolChildDenoDir(toolsDir: string, entry: string): string {
  return `${toolsDir}/${TOOL_CHILD_CACHE_FOLDER}/${basename(entry).replace(/\.ts$/, "")}`;
}

/** A sandboxed catalogue child's `DENO_DIR`, in its private `/tmp` tmpfs. */
export const SANDBOX_DENO_DIR = "/tmp/odek-deno";

/** The SQLite caches of a catalogue child's `DENO_DIR` (the module and CommonJS analyses, V8's). */
export const CACHE_FILES = [
  "dep_analysis_cache_v2",
  "node_analysis_cache_v2",
  "v8_code_cache_v2",
] as const;

/**
 * Put before the launcher of a sandboxed catalogue child (`$1`: its cache folder, read-only;
 * shifted off): opens each of {@linkcode CACHE_FILES} there read-only on descriptors 4, 5, 6
 * (`/dev/null` for a missing one: Deno starts an empty cache), which bwrap copies into
 * {@linkcode SANDBOX_DENO_DIR} ({@linkcode cacheFileArgs}). No program runs for the copy; the
 * sandbox check closes the descriptors before deno starts.
 */
export const CACHE_OPENER = `d=$1; shift\n${
  CACHE_FILES.map((name, i) =>
    `{ command exec ${i + 4}<"$d/${name}"; } 2>/dev/null || exec ${i + 4}</dev/null`
  ).join("\n")
}`;

/**
 * The bwrap arguments that copy the descriptors {@linkcode CACHE_OPENER} opened into
 * {@linkcode SANDBOX_DENO_DIR} (after `--dir` of it).
 *
 * @returns `--file 4 /tmp/odek-deno/dep_analysis_cache_v2 …`
 *
 * @example
 * ```ts
 * import { cacheFileArgs } from "./tool_child_deno_dir.ts";
 * if (cacheFileArgs()[2] !== "/tmp/odek-deno/dep_analysis_cache_v2") throw new Error("unexpected");
 * ```
 */
export function cacheFileArgs(): string[] {
  return CACHE_FILES.flatMap((name, i) => ["--file", String(i + 4), `${SANDBOX_DENO_DIR}/${name}`]);
}
