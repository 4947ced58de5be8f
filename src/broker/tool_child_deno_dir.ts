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
 * modules, read-only) linked to the cache's, and {@linkcode CACHE_PRELUDE} copies the SQLite
 * files there (about 1.3 MB) before it starts deno. What the child writes there is discarded with
 * its sandbox.
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

/**
 * Run inside a catalogue child's sandbox before deno: copy the SQLite caches of the child's
 * `DENO_DIR` (`$1`, read-only) into {@linkcode SANDBOX_DENO_DIR} (`$2`), then `exec` the rest
 * (deno). A missing cache file is skipped: Deno starts a new one.
 */
export const CACHE_PRELUDE = `cp -- "$1"/*_v2 "$1"/*_v2-wal "$2"/ 2>/dev/null; shift 2; exec "$@"`;
