/**
 * Remove the socket directories that killed odek processes left behind: an egress proxy removes
 * its own directory on `close()`, but not when it is killed.
 *
 * @module
 */
import { join } from "node:path";

/** A directory younger than this may belong to a proxy that is still starting. */
const GRACE_MS = 60_000;

/**
 * Delete every `odek-egress-*` directory in `tmp` that this user owns, is older than a minute,
 * and whose `proxy.sock` nobody listens on. Never throws.
 *
 * @param tmp the directory the proxies were created in
 * @param keep a directory never to touch (the caller's own)
 * @param now the current time in ms since the epoch. @default Date.now()
 */
export async function sweepStaleEgress(tmp: string, keep: string, now = Date.now()): Promise<void> {
  try {
    for await (const entry of Deno.readDir(tmp)) {
      if (!entry.isDirectory || !entry.name.startsWith("odek-egress-")) continue;
      const dir = join(tmp, entry.name);
      if (dir === keep) continue;
      const info = await Deno.lstat(dir).catch(() => null);
      const age = now - (info?.mtime?.getTime() ?? now);
      if (!info?.isDirectory || info.uid !== Deno.uid() || age < GRACE_MS) continue;
      if (await listening(join(dir, "proxy.sock"))) continue;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  } catch {
    // An unreadable temp directory: nothing to sweep.
  }
}

async function listening(socket: string): Promise<boolean> {
  try {
    (await Deno.connect({ transport: "unix", path: socket })).close();
    return true;
  } catch (error) {
    // Refused (a dead socket file) or missing: stale. Anything else: leave it alone.
    return !(error instanceof Deno.errors.ConnectionRefused ||
      error instanceof Deno.errors.NotFound);
  }
}
