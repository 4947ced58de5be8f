/**
 * Graceful stop of a sandbox or a process group: SIGTERM, then SIGKILL after a grace period.
 *
 * @module
 */
import { killSandbox } from "./_kill_sandbox.ts";

/** How long a terminated command may take to exit before it is killed, in milliseconds. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

/**
 * Stop a spawned bwrap sandbox (or an unsandboxed Deno child) gracefully: SIGTERM every process
 * below `pid` (the sandboxed command leads its own session and process group, `--new-session`,
 * and the namespace's pid 1, which ignores SIGTERM, exits once the command does), then wait up
 * to `graceMs` for `exited`, then {@linkcode killSandbox} (SIGKILL to the whole pid namespace).
 * The `/proc` walk runs in bash (Deno refuses `/proc` to a core without `--allow-all`).
 * Never throws.
 *
 * @param pid the spawned process (bwrap's pid when sandboxed); not yet reaped
 * @param exited resolves once that process has been reaped
 * @param graceMs time between SIGTERM and SIGKILL, in milliseconds
 * @returns once the process is gone or the SIGKILLs are sent
 *
 * @example Stop a sleep
 * ```ts
 * import { terminateSandbox } from "./_terminate.ts";
 * const child = new Deno.Command("bash", { args: ["-c", "sleep 30"], stdout: "null" }).spawn();
 * await terminateSandbox(child.pid, child.status, 1_000);
 * if ((await child.status).success) throw new Error("still ran to the end");
 * ```
 */
export async function terminateSandbox(
  pid: number,
  exited: Promise<unknown>,
  graceMs: number,
): Promise<void> {
  await signalTree(pid, "TERM", false);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gone = await Promise.race([
    exited.then(() => true, () => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), graceMs)),
  ]);
  clearTimeout(timer);
  if (!gone) await killSandbox(pid);
}

/**
 * Send `signal` to every descendant of `pid` (and to `pid` itself when `self`). Never throws.
 *
 * @param pid the root of the tree
 * @param signal a signal name without `SIG`, e.g. `TERM`
 * @param self whether `pid` gets it too
 */
export async function signalTree(pid: number, signal: string, self: boolean): Promise<void> {
  try {
    await new Deno.Command("/bin/bash", {
      args: ["-c", TREE_SCRIPT, "signal-tree", String(pid), signal, self ? "1" : "0"],
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // No bash: the caller's SIGKILL still follows.
  }
}

/** `$1` root pid, `$2` signal, `$3` 1 to include the root. Builtins only. */
const TREE_SCRIPT = `
root=$1 sig=$2 self=$3
kids=() # indexed by parent pid (sparse)
for f in /proc/[0-9]*/stat; do
  { IFS= read -r S < "$f"; } 2>/dev/null || continue
  p=\${f#/proc/}; p=\${p%/stat}
  S=\${S##*) }; set -- $S
  kids[$2]+=" $p"
done
queue=(\${kids[$root]}); all=()
[ "$self" = 1 ] && all+=("$root")
while [ \${#queue[@]} -gt 0 ]; do
  c=\${queue[0]}; queue=("\${queue[@]:1}"); all+=("$c"); queue+=(\${kids[$c]})
done
[ \${#all[@]} -gt 0 ] && kill -"$sig" "\${all[@]}" 2>/dev/null
exit 0
`;
