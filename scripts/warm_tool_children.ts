/**
 * Start each tool child's entry once, outside any sandbox, right after `deno install`, so that a
 * sandboxed child (which cannot write any cache: the checkout and its `DENO_DIR` are read-only in
 * its sandbox) starts from warm caches:
 * - Deno finishes its node_modules setup cache on a module's first run (without it every child
 *   start redid that work: about 2.5 s per new file-tool scope after a fresh install);
 * - each catalogue child (`files.ts`, `compute.ts`, `web.ts`) runs with exactly the command line
 *   {@linkcode renderSandbox} gives it (its V8 flags included: V8 rejects a code cache made with
 *   other flags) and its own `DENO_DIR` (`src/broker/tool_child_deno_dir.ts`), and is sent
 *   `preload`, so every handler module is transpiled and code-cached there too, not only the
 *   modules of its start (without that a new file-tool scope compiled its handlers on every
 *   start, ~150–250 ms); then its cache's SQLite logs are folded into the databases
 *   (`checkpoint_deno_cache.ts`), which a sandboxed child copies into its private `/tmp`.
 *
 * Each entry reads the child protocol from stdin and exits when it closes.
 *
 * @module
 */
import { renderSandbox } from "../src/broker/render_sandbox.ts";
import type { SandboxContext } from "../src/broker/sandbox_context_shape.ts";

/** The entries the broker starts (`src/broker/_broker_pools.ts`, `_module_tools.ts`). */
export const CHILD_ENTRIES = ["files.ts", "compute.ts", "web.ts", "module_tool.ts"];

/** The catalogue children, and whether each runs without permissions (the compute child). */
const CATALOGUE_CHILDREN: Record<string, "scoped" | "none"> = {
  "files.ts": "scoped",
  "compute.ts": "none",
  "web.ts": "scoped",
};

/**
 * Run each entry once: a catalogue child with its sandboxed command line minus bwrap, told to
 * preload its handlers; the module-tool child with the catalogue's import map (it needs a module
 * to serve, so it only starts).
 *
 * @param root the repository root (realpathed)
 * @param deno the deno binary (default: the running one)
 * @throws {Error} when an entry does not start (its stderr is in the message)
 */
export async function warmToolChildren(root: string, deno = Deno.execPath()): Promise<void> {
  const toolsDir = `${root}/tools`;
  for (const entry of CHILD_ENTRIES) {
    const permissions = CATALOGUE_CHILDREN[entry];
    const { argv, env, cwd } = permissions === undefined
      ? {
        argv: [deno, "run", "--no-prompt", "--no-remote", "--cached-only", "--config"]
          .concat(`${toolsDir}/deno.json`, `${toolsDir}/${entry}`),
        env: undefined,
        cwd: root,
      }
      : catalogueChild(toolsDir, deno, entry, permissions);
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd,
      ...(env ? { env, clearEnv: true } : {}),
      stdin: "piped",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const writer = child.stdin.getWriter();
    // A child that failed to start has closed its stdin: its stderr says why.
    if (permissions !== undefined) {
      await writer.write(new TextEncoder().encode('{"type":"preload"}\n')).catch(() => {});
    }
    await writer.close().catch(() => {});
    const out = await child.output().finally(() => clearTimeout(timer));
    // An entry may refuse its missing arguments (module_tool.ts): only Deno's own errors count.
    const stderr = new TextDecoder().decode(out.stderr);
    // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
    if (/(^|\n)(\x1b\[[0-9;]*m)*error(\x1b\[[0-9;]*m)*: /.test(stderr)) {
      throw new Error(`tools/${entry} did not start: ${stderr}`);
    }
    if (permissions !== undefined) await checkpoint(deno, env!.DENO_DIR);
  }
}

/** Fold the cache's SQLite logs into its databases (`checkpoint_deno_cache.ts`), in a deno of its own. */
async function checkpoint(deno: string, dir: string): Promise<void> {
  const script = new URL("./checkpoint_deno_cache.ts", import.meta.url).pathname;
  const out = await new Deno.Command(deno, {
    args: ["run", "--no-config", `--allow-read=${dir}`, `--allow-write=${dir}`, script, dir],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`cannot checkpoint ${dir}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** A catalogue child's command as a `sandbox: none` odek runs it (no workspace is granted). */
function catalogueChild(
  toolsDir: string,
  deno: string,
  entry: string,
  permissions: "scoped" | "none",
): { argv: string[]; env: Record<string, string>; cwd: string } {
  const context: SandboxContext = {
    mode: "none",
    bwrapPath: null,
    denoPath: deno,
    denoDir: "/nonexistent",
    toolsDir,
    // Granted nothing but its own folder, which it does not read (preload imports modules).
    workspace: toolsDir,
    home: "/nonexistent",
    odekHome: "/nonexistent",
    installDir: "/nonexistent",
    protectedRoots: [],
    readOnlyHomeFiles: [],
  };
  const set = { readPaths: [], writePaths: [], network: { type: "none" as const } };
  const { argv, env } = renderSandbox({ ...set, runBinaries: [], envNames: [] }, context, {
    kind: "tool_child",
    entry: `${toolsDir}/${entry}`,
    permissions,
  });
  return { argv, env, cwd: permissions === "none" ? "/" : toolsDir };
}

if (import.meta.main) {
  const root = await Deno.realPath(new URL("..", import.meta.url).pathname.replace(/\/$/, ""));
  await warmToolChildren(root);
}
