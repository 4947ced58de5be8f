/**
 * Noticing a workspace on a read-only file system (issue 13): nothing is refused (a read-only
 * workspace at `--trust untrusted` is legitimate), but the operator is told at start and by
 * `odek doctor`, and a write that fails is blamed on the file system, not on the call's scope.
 *
 * @module
 */
import { join } from "node:path";

/**
 * Whether the workspace's file system refuses writes: the directory's mode is set to what it is
 * (a no-op that a read-only file system refuses with EROFS), or, when odek does not own it, an
 * empty probe file is created and removed.
 *
 * @param workspace the workspace (real path)
 * @returns a warning for the operator, or `null` when the workspace is writable
 *
 * @example
 * ```ts
 * import { readOnlyWorkspace } from "./read_only_workspace.ts";
 * const dir = await Deno.makeTempDir();
 * if (await readOnlyWorkspace(dir) !== null) throw new Error("a temp directory is writable");
 * await Deno.remove(dir);
 * ```
 */
export async function readOnlyWorkspace(workspace: string): Promise<string | null> {
  const warning = (why: string) =>
    `the workspace ${workspace} is ${why}: every write to it will fail (reads work; this is fine for --trust untrusted)`;
  try {
    const mode = (await Deno.stat(workspace)).mode;
    if (mode !== null) {
      await Deno.chmod(workspace, mode & 0o7777);
      return null;
    }
  } catch (error) {
    if (isReadOnly(error)) return warning("on a read-only file system");
    if (!(error instanceof Deno.errors.PermissionDenied)) return null;
  }
  const probe = join(workspace, `.odek-write-probe-${crypto.randomUUID().slice(0, 8)}`);
  try {
    await Deno.writeFile(probe, new Uint8Array(), { createNew: true });
    await Deno.remove(probe);
    return null;
  } catch (error) {
    if (isReadOnly(error)) return warning("on a read-only file system");
    if (error instanceof Deno.errors.PermissionDenied) return warning("not writable by you");
    return null;
  }
}

/** EROFS, however Deno surfaces it. */
export function isReadOnly(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "EROFS" || /read-only file system/i.test(String((error as Error)?.message));
}
