/**
 * The only producer of `--allow-*` flags and bwrap mount arguments (design §2, house style §9).
 *
 * @module
 */
import { isAbsolute, normalize } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { PermissionSet } from "./permission_set.ts";

/** Where and how sandboxes are built. Every path is absolute and already realpathed. */
export interface SandboxContext {
  /** `bwrap`: mount namespace + Deno flags; `none`: Deno flags only, programs unconfined. */
  mode: "bwrap" | "none";
  /** The bwrap binary, or `null` when it is not installed. */
  bwrapPath: string | null;
  denoPath: string;
  denoDir: string;
  /** Holds `deno.json` (the tools' import map) and the tool-child entries. */
  toolsDir: string;
  workspace: string;
  home: string;
  odekHome: string;
  installDir: string;
  /** Hidden under an empty tmpfs in every sandbox (usually `[odekHome, installDir]`). */
  protectedRoots: string[];
  /** Files of the home bound read-only at their real paths when they exist (`~/.gitconfig`). */
  readOnlyHomeFiles: string[];
  /**
   * Host secrets outside the home hidden in every sandbox: directories under an empty tmpfs,
   * files under `/dev/null`. Each must exist. Filled when odek runs as root (root-only files
   * such as `/etc/shadow` are readable by a sandbox whose user is root). @default none
   */
  hiddenPaths?: { dirs: string[]; files: string[] };
  /** Extra environment entries; they never override the base entries. */
  extraEnv?: Record<string, string>;
  /**
   * A pids cgroup (see `findPidsCgroup`): each program sandbox joins a child group of it,
   * `<pidsCgroup>/s<pid>`, capped at `maxProcesses` (processes and threads). `null`/absent: no
   * process limit.
   */
  pidsCgroup?: string | null;
  /** Processes and threads one program sandbox may hold at once. @default 1024 */
  maxProcesses?: number;
  /**
   * Size cap of the sandbox's `/tmp` and of its home (each a tmpfs, which lives in RAM), in
   * bytes. The tmpfs that only hide something get 1 MiB. @default 1 GiB
   */
  tmpfsMaxBytes?: number;
  /**
   * The compiled seccomp filter (see `writeSeccompFilter`) every bwrap sandbox runs under: no
   * Unix-domain sockets, io_uring, keyring calls or foreign syscall ABI. `null`/absent: no filter.
   */
  seccompFile?: string | null;
}

/** {@linkcode SandboxContext.tmpfsMaxBytes} when absent (1 GiB). */
export const DEFAULT_TMPFS_MAX_BYTES = 1024 * 1024 * 1024;
/** The size of the tmpfs mounts that only hide something (`/run`, protected roots): 1 MiB. */
export const HIDE_TMPFS_BYTES = 1024 * 1024;

/** {@linkcode SandboxContext.maxProcesses} when absent. */
export const DEFAULT_MAX_PROCESSES = 1024;

/**
 * The launcher every bwrap sandbox starts through, run by `/bin/sh` (`$1` cgroup dir or empty,
 * `$2` limit, `$3` the compiled seccomp filter file or empty, then bwrap's argv). It removes the
 * empty groups of ended sandboxes in the background (Deno refuses `/sys` to a core without
 * `--allow-all`, so the core cannot; removing a cgroup takes the kernel ~10 ms), moves itself
 * into a new child group `s<pid>` of the pids cgroup (so bwrap and everything it starts is
 * counted), opens the filter as fd 3, and execs bwrap (same pid). A limit it cannot apply or a
 * filter it cannot open stops it with exit code 125 before anything runs: fail closed.
 */
export const SANDBOX_LAUNCHER = `c=$1 m=$2 f=$3; shift 3
if [ -n "$c" ]; then
  (rmdir "$c"/s[0-9]* 2>/dev/null &) # groups of ended sandboxes; a live one is busy and stays
  d=$c/s$$ n=0
  until { mkdir -p "$d" && echo "$m" > "$d/pids.max" && echo $$ > "$d/cgroup.procs"; } 2>/dev/null; do
    n=$((n + 1)) # a concurrent sweep may remove the group between mkdir and the join
    [ $n -lt 3 ] || { echo "odek: cannot limit the sandbox to $m processes in $d: nothing was run" >&2; exit 125; }
  done
fi
if [ -n "$f" ]; then exec 3< "$f" || exit 125; fi
exec "$@"`;

/** What to run inside the sandbox: a Deno tool child (its entry file) or a program. */
export type SandboxCommand = { kind: "tool_child"; entry: string } | {
  kind: "program";
  argv: string[];
};

/** The full command line and the complete environment of a sandboxed child. */
export interface RenderedSandbox {
  /** Starts with bwrap, or with deno (tool child) / the program when there is no bwrap layer. */
  argv: string[];
  /** The whole environment: spawn with `clearEnv: true`. */
  env: Record<string, string>;
}

/** `PATH` inside every sandbox. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Render a permission set as one command line. The mounts: `/` read-only, fresh `/dev`, `/proc`,
 * `/tmp` and `/run` (host sockets live there), the home an empty tmpfs with `readOnlyHomeFiles`
 * bound back (`/tmp` and the home capped at `tmpfsMaxBytes`), each protected root hidden under an
 * empty tmpfs, for a tool child `toolsDir`, deno and DENO_DIR read-only, then the
 * workspace and the set's paths (writable wins), parents before children. All namespaces are
 * unshared (network included: a `proxy` policy stays offline until the egress proxy exists) and
 * every capability is dropped (as root, bwrap would otherwise keep them, and `umount ~` would
 * reveal the home). `/proc/sys`, `/proc/sysrq-trigger`, `/proc/irq` and `/proc/bus` are bound
 * read-only over the fresh `/proc` (a root sandbox could otherwise write `core_pattern`), and
 * `hiddenPaths` are hidden. bwrap is started through {@linkcode SANDBOX_LAUNCHER}, which applies
 * the pids limit (programs only) and the seccomp filter (`--seccomp 3`) when the context names
 * them. A tool child additionally gets `--allow-read` (workspace, read and write
 * paths), `--allow-write` (write paths) and `--allow-run` (`runBinaries`), nothing else: deno
 * loads its modules and `node_modules` without read permission. Without bwrap (`mode: "none"`, or
 * `bwrapPath` null for a tool child) only the Deno flags confine.
 *
 * @param set the scope of the call
 * @param context paths and mode of this odek
 * @param command the tool child's entry file, or the program's argv (run with cwd = workspace)
 * @returns the argv and the complete env
 * @throws {RangeError} a path that is relative, not normalized, `/` where a hidden root is
 *   expected, or holds a comma or a control character; a run binary named deno; a
 *   `maxProcesses` below 8; a `tmpfsMaxBytes` below 1 MiB
 * @throws {OdekError} `SANDBOX_UNAVAILABLE` for a program in `bwrap` mode without bwrap
 *
 * @example Render a read-only tool child
 * ```ts
 * import { renderSandbox } from "./render_sandbox.ts";
 * const { argv } = renderSandbox(
 *   { readPaths: ["/srv/ws"], writePaths: [], network: { type: "none" }, runBinaries: [], envNames: [] },
 *   { mode: "bwrap", bwrapPath: "/usr/bin/bwrap", denoPath: "/usr/bin/deno", denoDir: "/home/u/.cache/deno",
 *     toolsDir: "/opt/odek/tools", workspace: "/srv/ws", home: "/home/u", odekHome: "/home/u/.odek",
 *     installDir: "/opt/odek", protectedRoots: ["/home/u/.odek", "/opt/odek"], readOnlyHomeFiles: [] },
 *   { kind: "tool_child", entry: "/opt/odek/tools/files.ts" },
 * );
 * if (!argv.includes("--allow-read=/srv/ws") || argv.some((a) => a.startsWith("--allow-write"))) {
 *   throw new Error("unexpected flags");
 * }
 * ```
 */
export function renderSandbox(
  set: PermissionSet,
  context: SandboxContext,
  command: SandboxCommand,
): RenderedSandbox {
  const c = context;
  const toolChild = command.kind === "tool_child";
  const writes = unique(set.writePaths.map(checked));
  const reads = unique([c.workspace, ...set.readPaths, ...writes].map(checked));
  const env: Record<string, string> = {
    ...c.extraEnv,
    PATH: SANDBOX_PATH,
    HOME: c.home,
    PWD: c.workspace,
    OLDPWD: c.workspace,
    LANG: "C.UTF-8",
    TMPDIR: "/tmp",
    NO_COLOR: "1",
    ...(toolChild ? { DENO_DIR: c.denoDir } : {}),
  };
  let inner = toolChild ? [] : command.argv;
  if (toolChild) {
    const run = set.runBinaries.map(checked);
    if (run.some((b) => b === c.denoPath || /(^|\/)deno(\.exe)?$/.test(b))) {
      throw new RangeError(`A tool child may never run deno: runBinaries is ${run.join(", ")}`);
    }
    inner = [c.denoPath, "run", "--no-prompt", "--no-remote", "--cached-only"];
    inner.push("--config", `${checked(c.toolsDir)}/deno.json`, `--allow-read=${reads.join(",")}`);
    if (writes.length > 0) inner.push(`--allow-write=${writes.join(",")}`);
    if (run.length > 0) inner.push(`--allow-run=${unique(run).join(",")}`);
    inner.push(checked(command.entry));
  }
  if (c.mode === "none" || (c.bwrapPath === null && toolChild)) return { argv: inner, env };
  if (c.bwrapPath === null) {
    throw new OdekError(
      "SANDBOX_UNAVAILABLE",
      'Cannot run a program as bwrap is not installed: run "apt-get install bubblewrap" as root, or set "sandbox": "none" in ODEK_HOME/config.jsonc to run unsandboxed',
    );
  }
  // [op, path, order at equal depth]; tmpfs hides before anything is bound back on top of it.
  // /run (and /var/run, a link to it) holds the host's sockets: docker, D-Bus, systemd, agents.
  // A read-only mount does not stop connect() on a socket file, so it is hidden too.
  const mounts: [string, string, number][] = [
    ["--tmpfs", "/tmp", 0],
    ["--tmpfs", "/run", 0],
    ["--tmpfs", checked(c.home), 0],
  ];
  for (const root of c.protectedRoots) mounts.push(["--tmpfs", checked(root), 0]);
  for (const dir of c.hiddenPaths?.dirs ?? []) mounts.push(["--tmpfs", checked(dir), 0]);
  for (const file of c.hiddenPaths?.files ?? []) mounts.push([HIDE_FILE, checked(file), 0]);
  for (const file of c.readOnlyHomeFiles) mounts.push(["--ro-bind-try", checked(file), 1]);
  if (toolChild) {
    mounts.push(["--ro-bind", c.toolsDir, 1], ["--ro-bind", checked(c.denoPath), 1]);
    mounts.push(["--ro-bind-try", checked(c.denoDir), 1]);
  }
  for (const path of reads) mounts.push([writes.includes(path) ? "--bind" : "--ro-bind", path, 2]);
  for (const [, path] of mounts) if (path === "/") throw new RangeError("Cannot hide or bind /");
  mounts.sort((a, b) => depth(a[1]) - depth(b[1]) || a[2] - b[2]);
  const argv = [
    c.bwrapPath,
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--unshare-net",
  ];
  argv.push("--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // The fresh /proc's kernel knobs are writable by a sandbox whose user is root, with no
  // capability at all (their owner is root): core_pattern runs a program on the host.
  argv.push("--ro-bind", "/proc/sys", "/proc/sys");
  for (const knob of ["/proc/sysrq-trigger", "/proc/irq", "/proc/bus"]) {
    argv.push("--ro-bind-try", knob, knob);
  }
  const filter = c.seccompFile ? checked(c.seccompFile) : "";
  if (filter !== "") argv.push("--seccomp", "3");
  const tmpfsBytes = c.tmpfsMaxBytes ?? DEFAULT_TMPFS_MAX_BYTES;
  if (!Number.isSafeInteger(tmpfsBytes) || tmpfsBytes < HIDE_TMPFS_BYTES) {
    throw new RangeError(`tmpfsMaxBytes must be an integer of at least 1 MiB, not ${tmpfsBytes}`);
  }
  for (const [op, path] of mounts) {
    if (op === HIDE_FILE) argv.push("--ro-bind", "/dev/null", path);
    else if (op !== "--tmpfs") argv.push(op, path, path);
    else {
      // tmpfs lives in RAM: /tmp and the home get the configured cap, hiding ones next to none.
      const size = path === "/tmp" || path === checked(c.home) ? tmpfsBytes : HIDE_TMPFS_BYTES;
      argv.push("--size", String(size), op, path);
    }
  }
  argv.push("--chdir", checked(c.workspace), "--", ...inner);
  const limit = toolChild ? null : c.pidsCgroup ?? null;
  const max = c.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  if (!Number.isSafeInteger(max) || max < 8) {
    throw new RangeError(`maxProcesses must be an integer of at least 8, not ${max}`);
  }
  const launcher = ["/bin/sh", "-c", SANDBOX_LAUNCHER, "odek-sandbox"];
  launcher.push(limit === null ? "" : checked(limit), limit === null ? "" : String(max), filter);
  return { argv: [...launcher, ...argv], env };
}

/** A mount op of the list above: bind `/dev/null` over a file. */
const HIDE_FILE = "hide-file";

function checked(path: string): string {
  // Commas split Deno's flag lists and control characters have no place in a mount path.
  // deno-lint-ignore no-control-regex
  if (!isAbsolute(path) || normalize(path) !== path || /[,\x00-\x1f]/.test(path)) {
    throw new RangeError(
      `Cannot render the sandbox path ${
        JSON.stringify(path)
      }: paths must be absolute, normalized, and hold no comma or control character`,
    );
  }
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)].sort();
}

function depth(path: string): number {
  return path.split("/").filter(Boolean).length;
}
