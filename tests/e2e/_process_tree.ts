/**
 * The processes of this machine as `/proc` shows them, for tests that look at a process tree:
 * each pid's parent, argv and (when readable) environment.
 *
 * @module
 */

/** One process. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  argv: string[];
  /** `null` when `/proc/<pid>/environ` cannot be read (another user namespace, gone). */
  environ: string | null;
  /** The raw command line (NUL-separated). */
  cmdline: string;
}

/**
 * Reads every process's parent, command line and environment (NULs as \x01) in one shell: Deno
 * reads `/proc` only with --allow-all. A fixed script, given no input.
 */
const SCAN = [
  "for d in /proc/[0-9]*; do",
  "  p=${d#/proc/}",
  '  s=$(cat "$d/stat" 2>/dev/null) || continue',
  "  r=${s##*) }",
  "  set -- $r",
  "  c=$(tr '\\000\\n' '\\001 ' < \"$d/cmdline\" 2>/dev/null)",
  "  if e=$(tr '\\000\\n' '\\001 ' < \"$d/environ\" 2>/dev/null); then ok=1; else ok=0; e=; fi",
  '  printf \'%s\\t%s\\t%s\\t%s\\t%s\\n\' "$p" "$2" "$ok" "$c" "$e"',
  "done",
].join("\n");

/** Every process that could be read now. */
export async function listProcesses(): Promise<ProcessInfo[]> {
  const { stdout } = await new Deno.Command("sh", {
    args: ["-c", SCAN],
    stdout: "piped",
    stderr: "null",
  })
    .output();
  const out: ProcessInfo[] = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    const [pid, ppid, ok, cmd, env] = line.split("\t");
    if (!pid || !/^\d+$/.test(pid)) continue;
    const cmdline = (cmd ?? "").replaceAll("\x01", "\0");
    out.push({
      pid: Number(pid),
      ppid: Number(ppid),
      argv: cmdline.split("\0").filter(Boolean),
      environ: ok === "1" ? (env ?? "").replaceAll("\x01", "\0") : null,
      cmdline,
    });
  }
  return out;
}

/** `root` and every process below it. */
export function descendants(all: readonly ProcessInfo[], root: number): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcessInfo[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    out.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return out;
}

/** Poll `check` until it returns true or `ms` pass; the last answer. */
export async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return await check();
}
