/**
 * Find a pids cgroup odek can create per-sandbox child groups in: the fork-bomb bound.
 *
 * @module
 */

/** Where shell sandboxes get their process limit, or why they get none. */
export type PidsCgroupProbe =
  | {
    type: "cgroup";
    /** The parent directory of the per-sandbox groups (odek's own pids cgroup). */
    dir: string;
    /** 1: the v1 `pids` hierarchy; 2: the unified hierarchy with the `pids` controller. */
    version: 1 | 2;
  }
  | { type: "unavailable"; reason: string };

/**
 * Probe once: read this process's cgroup (from a bash child: Deno refuses `/proc/self` reads
 * without `--allow-all`), then check that a child group can be created there and removed again,
 * and that it has `pids.max`. cgroup v1 (`/sys/fs/cgroup/pids`) is tried first, then v2
 * (`/sys/fs/cgroup` with `pids` in the parent's `cgroup.subtree_control`; odek never enables
 * controllers itself). RLIMIT_NPROC is no alternative: the kernel exempts root from it, even
 * inside a user namespace that maps to root.
 *
 * Needs `--allow-run=bash`. Never throws.
 *
 * @returns the cgroup to use, or the reason there is none (shown by `odek doctor`)
 *
 * @example Probe this machine
 * ```ts
 * import { findPidsCgroup } from "./find_pids_cgroup.ts";
 * const probe = await findPidsCgroup();
 * console.log(probe.type === "cgroup" ? `pids cgroup v${probe.version} at ${probe.dir}` : probe.reason);
 * ```
 */
export async function findPidsCgroup(): Promise<PidsCgroupProbe> {
  try {
    const { code, stdout } = await new Deno.Command("/bin/bash", {
      args: ["-c", PROBE],
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    const [kind, value] = new TextDecoder().decode(stdout).trim().split("\t");
    if (code === 0 && (kind === "1" || kind === "2") && value?.startsWith("/")) {
      return { type: "cgroup", dir: value, version: Number(kind) as 1 | 2 };
    }
    return { type: "unavailable", reason: value || "the cgroup probe failed" };
  } catch (error) {
    return { type: "unavailable", reason: `cannot run bash to probe cgroups: ${error}` };
  }
}

/** Prints `<version>\t<dir>` and exits 0, or `x\t<reason>` and exits 1. */
const PROBE = `
try() {
  local d="$1/odek-probe-$$"
  mkdir "$d" 2>/dev/null || return 1
  local ok=1; [ -f "$d/pids.max" ] && ok=0
  rmdir "$d" 2>/dev/null
  return $ok
}
v1=$(sed -n 's/^[0-9]*:pids:\\(.*\\)$/\\1/p' /proc/self/cgroup 2>/dev/null)
if [ -n "$v1" ] && [ -d /sys/fs/cgroup/pids ]; then
  d=/sys/fs/cgroup/pids\${v1%/}
  if try "$d"; then printf '1\\t%s\\n' "$d"; exit 0; fi
fi
v2=$(sed -n 's/^0::\\(.*\\)$/\\1/p' /proc/self/cgroup 2>/dev/null)
if [ -n "$v2" ] && grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  d=/sys/fs/cgroup\${v2%/}
  if grep -qw pids "$d/cgroup.subtree_control" 2>/dev/null && try "$d"; then
    printf '2\\t%s\\n' "$d"; exit 0
  fi
  printf 'x\\tcgroup v2 has the pids controller, but it is not enabled for child groups of %s (enable it for odek's group's children, e.g. run odek in a systemd scope with Delegate=yes)\\n' "$d"; exit 1
fi
if [ -n "$v1" ]; then
  printf 'x\\tthe pids cgroup %s is not writable (odek runs as uid %s)\\n' "/sys/fs/cgroup/pids\${v1%/}" "$(id -u)"; exit 1
fi
printf 'x\\tno pids cgroup controller is mounted under /sys/fs/cgroup\\n'; exit 1
`;
