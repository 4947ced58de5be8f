/**
 * Start each tool child's entry once, outside any sandbox, right after `deno install`: Deno
 * finishes its node_modules setup cache on a module's first run, and a tool child cannot write
 * it (the checkout is read-only in its sandbox), so without this every child start would redo
 * that work (about 2.5 s per new file-tool scope after a fresh install). Each entry reads the
 * child protocol from stdin; with stdin closed it exits at once.
 *
 * @module
 */

/** The entries the broker starts (`src/broker/_broker_pools.ts`, `_module_tools.ts`). */
export const CHILD_ENTRIES = ["files.ts", "compute.ts", "web.ts", "module_tool.ts"];

/**
 * Run each entry once with the flags a tool child gets (no permissions, cached only).
 *
 * @param root the repository root
 * @param deno the deno binary (default: the running one)
 * @throws {Error} when an entry does not start (its stderr is in the message)
 */
export async function warmToolChildren(root: string, deno = Deno.execPath()): Promise<void> {
  for (const entry of CHILD_ENTRIES) {
    const child = new Deno.Command(deno, {
      args: [
        "run",
        "--no-prompt",
        "--no-remote",
        "--cached-only",
        "--config",
        `${root}/tools/deno.json`,
        `${root}/tools/${entry}`,
      ],
      cwd: root,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const out = await child.output().finally(() => clearTimeout(timer));
    // An entry may refuse its missing arguments (module_tool.ts): only Deno's own errors count.
    const stderr = new TextDecoder().decode(out.stderr);
    // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
    if (/(^|\n)(\x1b\[[0-9;]*m)*error(\x1b\[[0-9;]*m)*: /.test(stderr)) {
      throw new Error(`tools/${entry} did not start: ${stderr}`);
    }
  }
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  await warmToolChildren(root);
}
