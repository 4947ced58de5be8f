/**
 * A queued run's scratch folder (private to `durable/`): `<root>/<first 24 hex digits of the
 * SHA-256 of the run id>`, the same path on every worker and in every execution of the run (the
 * path is in the session's records — its meta, the system prompt — which a takeover's replay writes
 * again and must find identical). The root must be this user's directory, closed to others: the
 * path is predictable.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";

/**
 * Make the run's scratch folder (0700), empty: a folder an execution that died left there is
 * deleted first (the run branch holds what it checkpointed).
 *
 * @param scratchRoot the root @default `<temp folder>/odek-runs`
 * @param runId the run
 * @returns the folder's real path
 * @throws {OdekError} `WORKSPACE_INVALID` when the root is not a 0700 directory of this user
 */
export async function runScratch(scratchRoot: string | undefined, runId: string): Promise<string> {
  const root = scratchRoot ?? join(tmpdir(), "odek-runs");
  await Deno.mkdir(root, { recursive: true, mode: 0o700 });
  const info = await Deno.lstat(root);
  if (!info.isDirectory || info.uid !== Deno.uid() || (info.mode! & 0o077) !== 0) {
    throw new OdekError(
      "WORKSPACE_INVALID",
      `The scratch folder ${root} must be a directory of this user with mode 0700 (it is a ${
        info.isSymlink ? "symlink" : info.isDirectory ? "directory" : "file"
      }, uid ${info.uid}, mode ${
        (info.mode! & 0o777).toString(8)
      }): fix it or pass another --git-scratch.`,
    );
  }
  // The same path on every worker and in every execution of the run: the path is in the
  // session's records (its meta, the system prompt), which a takeover's replay writes again.
  const name = createHash("sha256").update(runId).digest("hex").slice(0, 24);
  const scratch = join(await Deno.realPath(root), name);
  // A folder left by an execution that died (the run branch holds what it checkpointed).
  await Deno.remove(scratch, { recursive: true }).catch(() => {});
  await Deno.mkdir(scratch, { mode: 0o700 });
  return scratch;
}
