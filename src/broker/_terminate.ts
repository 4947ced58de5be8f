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
  // Without bash nothing is signalled here; the caller's SIGKILL still follows.
  await runScript(TREE_SCRIPT, "signal-tree", [String(pid), signal, self ? "1" : "0"]);
}

/**
 * The pids of the direct children of `pid` (from `/proc/<pid>/stat`, in bash: Deno refuses `/proc`
 * to a core without `--allow-all`). Never throws: none found, or no bash, is `[]`.
 *
 * @param pid the parent
 * @returns its children's pids, in `/proc` order
 *
 * @example A shell's sleep
 * ```ts
 * import { childrenOf } from "./_terminate.ts";
 * const child = new Deno.Command("bash", { args: ["-c", "sleep 30 & echo; wait"], stdout: "piped" }).spawn();
 * const reader = child.stdout.getReader();
 * await reader.read();
 * const kids = await childrenOf(child.pid);
 * child.kill("SIGKILL");
 * for (const pid of kids) Deno.kill(pid, "SIGKILL");
 * await child.status;
 * reader.releaseLock();
 * await child.stdout.cancel();
 * if (kids.length !== 1) throw new Error(`children: ${kids}`);
 * ```
 */
export async function childrenOf(pid: number): Promise<number[]> {
  const out = await runScript(CHILDREN_SCRIPT, "children-of", [String(pid)]);
  return out.split(/\s+/).filter(Boolean).map(Number);
}

/**
 * Run one of this file's fixed scripts in bash with `args` (Deno refuses every `/proc` read to a
 * core without `--allow-all`): its stdout, or `""` when bash cannot be started.
 */
async function runScript(script: string, name: string, args: string[]): Promise<string> {
  try {
    const out = await new Deno.Command("/bin/bash", {
      args: ["-c", script, name, ...args],
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(out.stdout);
  } catch {
    return "";
  }
}

/** `$1` the parent pid: prints its children's pids. Builtins only. */
const CHILDREN_SCRIPT = `
p=$1
for f in /proc/[0-9]*/stat; do
  { IFS= read -r S < "$f"; } 2>/dev/null || continue
  c=\${f#/proc/}; c=\${c%/stat}
  S=\${S##*) }; set -- $S
  [ "$2" = "$p" ] && echo "$c"
done
exit 0
`;

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
