/**
 * Remove the per-sandbox pids cgroup a sandbox launcher created (see `SANDBOX_LAUNCHER`).
 *
 * @module
 */

/**
 * Remove `<pidsCgroup>/s<pid>` once the sandbox has exited. The kernel refuses while processes
 * of the group are still dying, so it retries for about two seconds. Never throws: a group
 * that was never created (the launcher failed early) or is already gone is fine, and one that
 * cannot be removed is left empty (it holds no processes and costs nothing).
 *
 * @param pidsCgroup the context's `pidsCgroup`; nothing happens when it is null or absent
 * @param pid the pid of the spawned launcher (which became bwrap)
 * @returns once the group is gone or the retries are spent
 *
 * @example Nothing to do without a cgroup
 * ```ts
 * import { releasePidsGroup } from "./_pids_group.ts";
 * await releasePidsGroup(null, 12345);
 * ```
 */
export async function releasePidsGroup(
  pidsCgroup: string | null | undefined,
  pid: number,
): Promise<void> {
  if (!pidsCgroup) return;
  const dir = `${pidsCgroup}/s${pid}`;
  for (let attempt = 0; attempt < 40; attempt++) {
    try {
      await Deno.remove(dir);
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      if (!(error instanceof Deno.errors.Busy) && !/busy/i.test(String(error))) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
