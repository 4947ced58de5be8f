/**
 * Kill a bwrap sandbox and everything in it, even while bwrap is still setting it up.
 *
 * @module
 */

/**
 * SIGKILL a spawned bwrap and every direct child of it, and resolve once the signals are sent.
 *
 * Killing bwrap alone is not enough: its child (pid 1 of the sandbox's pid namespace) arms
 * `--die-with-parent` only part-way through setup, so a bwrap killed in its first milliseconds
 * leaves the sandbox running (measured with bubblewrap 0.8: about half of 200 sandboxes killed
 * right after spawn survived). So bwrap is stopped first (SIGSTOP), and once it is really
 * stopped (it can no longer clone) its children are found through `/proc/<pid>/stat` and killed
 * (killing the namespace's pid 1 kills every process in the namespace), then bwrap itself. For a
 * process without children (a Deno tool child run without bwrap) this is a plain SIGKILL.
 *
 * Call it only while the process has not been reaped (its status has not resolved), or the pid
 * may name another process. The `/proc` walk runs in a short bash script: Deno refuses every
 * `/proc` read to a process without `--allow-all`, which odek's core never has. Needs
 * `--allow-run`. Never throws: a process that is already gone is skipped.
 *
 * @param pid the pid of the spawned bwrap (or of an unsandboxed child)
 * @returns once every signal is sent
 *
 * @example Kill a sleeping process
 * ```ts
 * import { killSandbox } from "./_kill_sandbox.ts";
 * const child = new Deno.Command("sleep", { args: ["30"], stdout: "null", stderr: "null" }).spawn();
 * await killSandbox(child.pid);
 * if ((await child.status).signal !== "SIGKILL") throw new Error("not killed");
 * ```
 */
export async function killSandbox(pid: number): Promise<void> {
  try {
    await new Deno.Command("/bin/bash", {
      args: ["-c", KILL_SCRIPT, "kill-sandbox", String(pid)],
      clearEnv: true,
      env: { PATH: "/usr/bin:/bin" },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // No bash: fall back to killing the process itself.
  }
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * `$1` is the pid: stop it, wait (≤ ~0.5 s) until it is stopped or gone, SIGKILL each direct
 * child (the field after "(comm)" is the state, then the parent pid), then the process.
 */
const KILL_SCRIPT = `
p="$1"
kill -STOP "$p" 2>/dev/null
# Builtins only (read, not cat): a kill must not wait on dozens of spawns.
stat() { S=; { IFS= read -r S < "/proc/$1/stat"; } 2>/dev/null || return 1; S=\${S##*) }; }
for _ in {1..500}; do
  stat "$p" || break
  case "\${S%% *}" in T|t|Z|X) break ;; esac
  sleep 0.001
done
for f in /proc/[0-9]*/stat; do
  c=\${f#/proc/}; c=\${c%/stat}
  stat "$c" || continue
  set -- $S
  if [ "$2" = "$p" ]; then kill -KILL "$c" 2>/dev/null; fi
done
kill -KILL "$p" 2>/dev/null
exit 0
`;
