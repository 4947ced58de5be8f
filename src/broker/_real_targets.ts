/**
 * Resolve the targets a verdict grants before they become mounts.
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import type { Verdict } from "../danger/verdict.ts";

/**
 * Return the verdict with every target of its `system_write` and `destructive` parts (the parts
 * whose targets become writable binds) replaced by its real path: the realpath of its deepest
 * existing ancestor, joined with the part that does not exist yet. The classifier judges paths
 * lexically, and bwrap follows symlinks when it binds, so without this a granted
 * `/var/tmp/link/secret.txt` whose `link` points into ODEK_HOME would mount ODEK_HOME's file,
 * and `/proc/<pid>/root/…` would mount the host's root. A target that cannot be resolved (a
 * `/proc` path Deno refuses, a loop, a permission error) is dropped: its write then fails inside
 * the sandbox. `derivePermissions` then checks the real paths against the protected roots.
 *
 * @param verdict the approved verdict
 * @param workspace relative targets resolve against it
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
export async function realTargets(verdict: Verdict, workspace: string): Promise<Verdict> {
  const parts = await Promise.all(verdict.parts.map(async (part) => {
    if (part.riskClass !== "system_write" && part.riskClass !== "destructive") return part;
    const targets: string[] = [];
    for (const target of part.targets) {
      const real = await realOrMissing(resolve(workspace, target));
      if (real !== null) targets.push(real);
    }
    return { ...part, targets };
  }));
  return { ...verdict, parts };
}

async function realOrMissing(path: string): Promise<string | null> {
  let missing = "";
  let current = path;
  for (let depth = 0; depth < 256; depth++) {
    try {
      return join(await Deno.realPath(current), missing);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return null;
      if (current === "/") return null;
      missing = missing === "" ? basename(current) : join(basename(current), missing);
      current = dirname(current);
    }
  }
  return null;
}
