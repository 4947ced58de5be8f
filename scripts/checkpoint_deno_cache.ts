/**
 * Fold the write-ahead logs of a Deno cache's SQLite databases (`*_v2`: the V8 code cache, the
 * module and CommonJS analyses) into the databases and close them cleanly, so each is one
 * self-contained file. A sandboxed tool child copies those files into its private `/tmp` before
 * it starts (`src/broker/tool_child_deno_dir.ts`): what is still in a `-wal` file would be missing
 * there. Run by `scripts/warm_tool_children.ts` once the children have filled their caches:
 * `deno run --allow-read=<dir> --allow-write=<dir> scripts/checkpoint_deno_cache.ts <dir>`.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/** The SQLite databases a sandboxed child copies (the prelude copies `*_v2`). */
export const CACHE_DATABASES = [
  "dep_analysis_cache_v2",
  "node_analysis_cache_v2",
  "v8_code_cache_v2",
];

/**
 * Checkpoint each database of `dir` that exists.
 *
 * @param dir a `DENO_DIR`
 * @returns the databases checkpointed
 * @throws {Error} when a database cannot be opened or checkpointed (another process writing it)
 */
export function checkpointDenoCache(dir: string): string[] {
  const done: string[] = [];
  for (const name of CACHE_DATABASES) {
    const path = `${dir}/${name}`;
    try {
      Deno.statSync(path);
    } catch {
      continue;
    }
    const db = new DatabaseSync(path);
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
    done.push(name);
  }
  return done;
}

if (import.meta.main) {
  const [dir] = Deno.args;
  if (dir === undefined) {
    console.error("usage: checkpoint_deno_cache.ts <DENO_DIR>");
    Deno.exit(2);
  }
  checkpointDenoCache(dir);
}
