/**
 * Resolve the targets a verdict grants before they become mounts.
 *
 * @module
 */
import { resolve } from "node:path";
import { trustedRealPath } from "../config/trusted_real_path.ts";
import type { Verdict } from "../danger/verdict.ts";

/** Options for {@linkcode realTargets}. */
export interface RealTargetsOptions {
  /**
   * ODEK_HOME and the install directory: a symlink is followed only when its directory contains
   * one of them (or is `home`), since no sandbox is ever granted such a directory writable, so
   * no sandbox can have planted or swapped the link. @default none: no symlink is followed
   */
  protectedRoots?: readonly string[];
  /** The user's home: links directly in it (`~/.bashrc` → dotfiles) are followed. */
  home?: string;
}

/**
 * Return the verdict with every target of its `system_write` and `destructive` parts (the parts
 * whose targets become writable binds) replaced by its real path: the path walked from `/` with
 * its symlinks resolved, joined with the part that does not exist yet. The classifier judges
 * paths lexically, and bwrap follows symlinks when it binds, so without this a granted
 * `/var/tmp/link/secret.txt` whose `link` points into ODEK_HOME would mount ODEK_HOME's file,
 * and `/proc/<pid>/root/…` would mount the host's root.
 *
 * A symlink on the way is followed only when it lies in a directory no sandbox can ever write
 * (one containing a protected root, or the home itself): a link in a directory some sandbox may
 * write — another session's workspace, say — could have been planted or swapped there at this
 * very moment (a directory exchanged with a link to `~/.ssh`), so such a target is dropped
 * rather than mounted wherever the link points. A target that cannot be resolved (a `/proc`
 * path Deno refuses, a loop, a permission error) is dropped too: its write then fails inside the
 * sandbox. `derivePermissions` then checks the real paths against the protected roots, and the
 * sandbox pins and checks each mount (`_sandbox_check.ts`).
 *
 * @param verdict the approved verdict
 * @param workspace relative targets resolve against it
 * @param options the protected roots and the home (which links to trust)
 * @returns a verdict with the same parts, classes and decision
 *
 * @example A relative target becomes absolute
 * ```ts
 * import { realTargets } from "./_real_targets.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const v = await realTargets({
 *   parts: [{ riskClass: "system_write", subject: "x", targets: ["new/file.txt"] }],
 *   decision: "ask",
 *   reason: "",
 * }, dir);
 * await Deno.remove(dir);
 * if (v.parts[0].targets[0] !== `${dir}/new/file.txt`) throw new Error(v.parts[0].targets[0]);
 * ```
 */
export async function realTargets(
  verdict: Verdict,
  workspace: string,
  options: RealTargetsOptions = {},
): Promise<Verdict> {
  const trust = { protectedRoots: options.protectedRoots ?? [], home: options.home };
  const parts = await Promise.all(verdict.parts.map(async (part) => {
    if (part.riskClass !== "system_write" && part.riskClass !== "destructive") return part;
    const targets: string[] = [];
    for (const target of part.targets) {
      const real = await trustedRealPath(resolve(workspace, target), trust).catch(() => null);
      if (real?.type === "real") targets.push(real.path);
    }
    return { ...part, targets };
  }));
  return { ...verdict, parts };
}
