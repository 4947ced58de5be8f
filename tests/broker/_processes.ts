/**
 * Look for processes by a marker in their command line (test helper).
 *
 * @module
 */

/**
 * The pids of live processes whose command line contains every one of `markers` (zombies have
 * none). Pass at least one per-instance token (a random sleep from {@linkcode uniqueSleep}, a
 * test's own temporary directory): a name every odek uses would count other tests' processes on
 * this machine too. Deno refuses to read `/proc` without `--allow-all`, so bash lists the command
 * lines.
 */
export function processesWith(...markers: string[]): number[] {
  if (markers.length === 0) throw new TypeError("processesWith() needs at least one marker");
  const script =
    'for f in /proc/[0-9]*/cmdline; do p=${f#/proc/}; printf "%s\\t" "${p%/cmdline}"; tr "\\0\\n" "  " < "$f" 2>/dev/null; echo; done';
  const out = new Deno.Command("bash", { args: ["-c", script], stdout: "piped", stderr: "null" })
    .outputSync();
  const pids: number[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const tab = line.indexOf("\t");
    if (tab < 0) continue;
    const [pid, cmdline] = [line.slice(0, tab), line.slice(tab + 1)];
    // The listing's own bash carries the marker only inside this script, never as a command line.
    if (
      markers.every((marker) => cmdline.includes(marker)) &&
      !cmdline.includes("/proc/[0-9]*/cmdline")
    ) {
      pids.push(Number(pid));
    }
  }
  return pids;
}

/**
 * Wait (up to about 5 s) until no process carries all of `markers`; returns those still there. A
 * bound on liveness, not a speed assertion: killing a sandbox is asynchronous in the kernel.
 */
export async function survivorsOf(...markers: string[]): Promise<number[]> {
  for (let i = 0; i < 100; i++) {
    if (processesWith(...markers).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return processesWith(...markers);
}

/**
 * Wait (up to about 10 s) until some process carries all of `markers`; returns their pids (empty
 * when none appeared in time). For ordering a test on a process having started, never a sleep.
 */
export async function processesAppear(...markers: string[]): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const pids = processesWith(...markers);
    if (pids.length > 0) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [];
}

/** A marker no other process has: a `sleep` duration nobody else would pick. */
export function uniqueSleep(): string {
  return `sleep 4242.${Math.floor(Math.random() * 1e9)}`;
}
