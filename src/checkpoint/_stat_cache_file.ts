/**
 * The stat cache of a shadow repository on disk (`odek-stat-cache.json`): path → stat key and
 * blob id, so a new process does not read every unchanged file again. Only a cache: a damaged or
 * foreign file is ignored, and an entry is used only when its blob is still stored.
 *
 * @module
 */
import { join } from "node:path";
import type { StatCache } from "./_snapshot_workspace.ts";

const FILE = "odek-stat-cache.json";

/** Load the cache for `workspace` (empty when missing, damaged or of another workspace). */
export function loadStatCache(gitdir: string, workspace: string): StatCache {
  const cache: StatCache = new Map();
  try {
    const data = JSON.parse(Deno.readTextFileSync(join(gitdir, FILE)));
    if (data?.v !== 1 || data.workspace !== workspace || !Array.isArray(data.entries)) return cache;
    for (const entry of data.entries) {
      if (
        Array.isArray(entry) && typeof entry[0] === "string" && typeof entry[1] === "string" &&
        typeof entry[2] === "string" && /^[0-9a-f]{40}$/.test(entry[2])
      ) {
        cache.set(entry[0], { key: entry[1], oid: entry[2] });
      }
    }
  } catch {
    // no cache yet, or an unreadable one
  }
  return cache;
}

/** Write the cache (to a temporary file, then renamed). */
export function saveStatCache(gitdir: string, workspace: string, cache: StatCache): void {
  const path = join(gitdir, FILE);
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  const entries = [...cache].map(([p, e]) => [p, e.key, e.oid]);
  Deno.writeTextFileSync(temp, JSON.stringify({ v: 1, workspace, entries }), {
    createNew: true,
    mode: 0o600,
  });
  Deno.renameSync(temp, path);
}
