/**
 * The only producer of `--allow-*` flags and bwrap mount arguments (design §2, house style §9).
 *
 * @module
 */
import { dirname, isAbsolute, normalize } from "node:path";
import { type ModuleChild, moduleChildArgs, moduleImportFlags } from "./_module_dir.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { PermissionSet } from "./permission_set.ts";
import type { SandboxContext } from "./sandbox_context_shape.ts";
import { EGRESS_LAUNCHER, EGRESS_TOKEN_ENV } from "./_egress_launcher.ts";
import { GIT_NEUTRAL_ENV } from "./_git_neutral_env.ts";
import { SANDBOX_LAUNCHER } from "./_sandbox_launcher.ts";
import {
  CACHE_OPENER,
  cacheFileArgs,
  SANDBOX_DENO_DIR,
  toolChildDenoDir,
} from "./tool_child_deno_dir.ts";
import {
  CLOSE_DESCRIPTORS,
  type MountCheck,
  pinnedBind,
  pinnedStart,
  sandboxCheckArgv,
} from "./_sandbox_check.ts";

export type { SandboxContext } from "./sandbox_context_shape.ts";
export { SANDBOX_LAUNCHER, SWEEP_AT } from "./_sandbox_launcher.ts";

/** {@linkcode SandboxContext.tmpfsMaxBytes} when absent (1 GiB). */
export const DEFAULT_TMPFS_MAX_BYTES = 1024 * 1024 * 1024;
/** The size of the tmpfs mounts that only hide something (`/run`, protected roots): 1 MiB. */
export const HIDE_TMPFS_BYTES = 1024 * 1024;

/** {@linkcode SandboxContext.maxProcesses} when absent. */
export const DEFAULT_MAX_PROCESSES = 1024;

/**
 * What to run inside the sandbox: a Deno tool child (its entry file) or a program. A tool child
 * with `permissions: "none"` (the compute child) gets no `--allow-*` flag at all and, inside bwrap,
 * no workspace or granted path mounted; its set must grant nothing. With a `module`: `ModuleChild`.
 */
export type SandboxCommand =
  | { kind: "tool_child"; entry: string; permissions?: "scoped" | "none"; module?: ModuleChild }
  | {
    kind: "program";
    argv: string[];
    /**
     * The call's egress credential (`EgressProxy.issue`): with a `proxy` network policy the
     * proxy variables carry it (`http://odek:<token>@127.0.0.1:<port>`), so a sibling sandbox
     * on the same loopback cannot use this call's forwarder. A spare gets it with its command
     * instead (`STANDBY_LAUNCHER`). @default none
     */
    egressToken?: string;
  };

/** The V8 heap cap of a tool child without permissions, in MiB (it evaluates model input). */
export const ISOLATED_CHILD_HEAP_MB = 512;

/**
 * The V8 flag every tool child runs with: a regular expression that backtracks excessively (a
 * model's `(a+)+$` in `search_files`, a glob that compiles to one) is re-run on V8's linear-time
 * engine instead of holding the child until its call timeout. Patterns that engine cannot run
 * (backreferences, lookbehind) still backtrack; the call timeout bounds them.
 */
export const LINEAR_REGEXP_FALLBACK_FLAG =
  "--v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks";

/** The full command line and the complete environment of a sandboxed child. */
export interface RenderedSandbox {
  /** Starts with bwrap, or with deno (tool child) / the program when there is no bwrap layer. */
  argv: string[];
  /** The whole environment: spawn with `clearEnv: true`. */
  env: Record<string, string>;
  /** `SANDBOX_CHECK` runs first (bwrap): read its stderr through `SandboxCheckVerdict`. */
  check: boolean;
}

/** Where the egress proxy's socket is bound inside a sandbox granted network. */
export const EGRESS_SOCKET_IN_SANDBOX = "/run/odek-egress.sock";

/** `PATH` inside every sandbox. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * Render a permission set as one command line. The mounts: `/` read-only, a fresh `/dev`
 * (read-only but for its device nodes, with its own `/dev/shm`), `/proc`, `/tmp` and `/run` (host
 * sockets live there), the home an empty tmpfs with `readOnlyHomeFiles` bound back (`/tmp`,
 * `/dev/shm` and the home capped at `tmpfsMaxBytes`), each protected root hidden under an
 * empty tmpfs, for a tool child `toolsDir` and deno read-only (a catalogue child's `DENO_DIR` is
 * its own, inside `toolsDir`: see `tool_child_deno_dir.ts`; a module-tool child's is the
 * context's `denoDir`, bound read-only too), then the workspace and the set's paths (writable
 * wins), parents before children. All namespaces are unshared (network included: the namespace
 * has only `lo`) and every capability is dropped (as root, bwrap would otherwise keep them, and
 * `umount ~` would reveal the home). `/proc/sys`, `/proc/sysrq-trigger`, `/proc/irq` and
 * `/proc/bus` are bound read-only over the fresh `/proc` (a root sandbox could otherwise write
 * `core_pattern`), and `hiddenPaths` are hidden. bwrap is started through
 * {@linkcode SANDBOX_LAUNCHER}, which applies the pids limit (programs only) and the seccomp
 * filter (`--seccomp 3`) when the context names them. A tool child additionally gets
 * `--allow-read` (workspace, read and write paths), `--allow-write` (write paths) and
 * `--allow-run` (`runBinaries`), nothing else: deno loads its modules and `node_modules` without
 * read permission. A tool child with `permissions: "none"` gets no `--allow-*` flag, no workspace
 * mount, `/` as its cwd, and a V8 heap cap of {@linkcode ISOLATED_CHILD_HEAP_MB} MiB. Without
 * bwrap (`mode: "none"`, or `bwrapPath` null for a tool child) only the Deno flags confine.
 * Inside bwrap `SANDBOX_CHECK` runs first (`check` is true): it closes every descriptor above 2,
 * checks each bind `pin` pinned here (`_sandbox_check.ts`) and says on stderr whether it passed;
 * outside bwrap `CLOSE_DESCRIPTORS` closes the descriptors.
 *
 * Network (a `proxy` policy, with `context.egressSocket` set): the proxy's socket is bound at
 * {@linkcode EGRESS_SOCKET_IN_SANDBOX}. A tool child gets `--allow-net` (its namespace has only
 * `lo`, so fetch reaches nothing but the proxy) and read/write on the socket, and the socket path
 * as the argument `--egress-socket=<path>` after the entry (reading the environment would need
 * `--allow-env`). A program is started by a launcher that first runs
 * `tools/egress_forwarder.ts` (deno and the forwarder bound read-only; `--allow-net` only for
 * `127.0.0.1` and the socket) and sets `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` (and lowercase)
 * to it. Unconfined programs (`mode: "none"`) are not proxied. The socket's directory is hidden
 * in every sandbox.
 *
 * @param set the scope of the call
 * @param context paths and mode of this odek
 * @param command the tool child's entry file, or the program's argv (run with cwd = workspace)
 * @returns the argv, the complete env, and whether the sandbox's check runs
 * @throws {RangeError} a path that is relative, not normalized, `/` where a hidden root is
 *   expected, or holds a comma or a control character; a run binary named deno; a set that
 *   grants anything for a tool child with `permissions: "none"`; a `maxProcesses` below 8; a
 *   `tmpfsMaxBytes` below 1 MiB; a `module` that `moduleImportFlags` refuses
 * @throws {OdekError} `SANDBOX_UNAVAILABLE` for a program in `bwrap` mode without bwrap;
 *   `PATH_CHANGED` when a bind source changed or vanished while it was pinned
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
  const isolated = command.kind === "tool_child" && command.permissions === "none";
  const grants = set.network.type !== "none" ||
    [set.readPaths, set.writePaths, set.runBinaries, set.envNames].some((l) => l.length > 0);
  if (isolated && grants) {
    throw new RangeError(
      "A tool child without permissions takes a permission set that grants nothing",
    );
  }
  const writes = isolated ? [] : unique(set.writePaths.map(checked));
  const reads = isolated ? [] : unique([c.workspace, ...set.readPaths, ...writes].map(checked));
  const cwd = isolated ? "/" : checked(c.workspace);
  const scratch = !toolChild && c.scratchDir !== undefined ? checked(c.scratchDir) : null;
  const moduleChild = command.kind === "tool_child" && command.module !== undefined;
  const childCache = command.kind === "tool_child" && !moduleChild
    ? toolChildDenoDir(checked(c.toolsDir), checked(command.entry))
    : "";
  // A catalogue child in bwrap copies its cache's SQLite files into its /tmp (see the module).
  const cacheCopy = childCache !== "" && c.mode !== "none" && c.bwrapPath !== null;
  const childDenoDir = moduleChild ? c.denoDir : cacheCopy ? SANDBOX_DENO_DIR : childCache;
  const env: Record<string, string> = {
    ...c.extraEnv,
    PATH: SANDBOX_PATH,
    HOME: c.home,
    PWD: cwd,
    OLDPWD: cwd,
    LANG: "C.UTF-8",
    TMPDIR: scratch ?? "/tmp",
    NO_COLOR: "1",
    ...(toolChild ? { DENO_DIR: childDenoDir } : {}),
  };
  // The fixed git keys a repository could set to run a program, neutralised for a program whose
  // workspace is read-only (a read scope: nothing configured by the repository may run).
  if (!toolChild && !writes.includes(checked(c.workspace))) Object.assign(env, GIT_NEUTRAL_ENV);
  const egress = set.network.type === "proxy" && c.egressSocket !== undefined;
  const sandboxed = c.mode === "bwrap" && c.bwrapPath !== null;
  const socket = egress ? (sandboxed ? EGRESS_SOCKET_IN_SANDBOX : checked(c.egressSocket!)) : "";
  const forwarder = `${checked(c.toolsDir)}/egress_forwarder.ts`;
  let inner = toolChild ? [] : command.argv;
  if (egress && !toolChild && sandboxed) {
    const forward = [c.denoPath, "run", "--no-prompt", "--no-remote", "--no-config", "--no-lock"];
    forward.push(`--allow-net=127.0.0.1,unix:${socket}`);
    forward.push(`--allow-read=${socket}`, `--allow-write=${socket}`, forwarder, socket);
    inner = ["bash", "-c", EGRESS_LAUNCHER, "odek-egress", String(forward.length), ...forward];
    inner.push(...command.argv);
    if (command.egressToken) env[EGRESS_TOKEN_ENV] = command.egressToken;
  }
  if (toolChild) {
    const run = set.runBinaries.map(checked);
    if (run.some((b) => b === c.denoPath || /(^|\/)deno(\.exe)?$/.test(b))) {
      throw new RangeError(`A tool child may never run deno: runBinaries is ${run.join(", ")}`);
    }
    inner = [c.denoPath, "run", "--no-prompt", "--no-remote", "--cached-only"];
    const sock = egress ? [socket] : [];
    inner.push(...moduleImportFlags(command.module, { ...c, set, isolated }, checked(c.toolsDir)));
    inner.push(LINEAR_REGEXP_FALLBACK_FLAG);
    if (isolated) inner.push(`--v8-flags=--max-old-space-size=${ISOLATED_CHILD_HEAP_MB}`);
    if (reads.length + sock.length > 0) inner.push(`--allow-read=${[...reads, ...sock].join(",")}`);
    if (writes.length + sock.length > 0) {
      inner.push(`--allow-write=${[...writes, ...sock].join(",")}`);
    }
    if (egress) inner.push("--allow-net");
    if (run.length > 0) inner.push(`--allow-run=${unique(run).join(",")}`);
    inner.push(checked(command.entry), ...moduleChildArgs(command.module));
    if (egress) inner.push(`--egress-socket=${socket}`);
  }
  if (c.mode === "none" || (c.bwrapPath === null && toolChild)) {
    return {
      argv: ["/bin/bash", "-c", CLOSE_DESCRIPTORS, "odek-fds", ...inner],
      env,
      check: false,
    };
  }
  if (c.mode === "docker" && !toolChild) {
    throw new RangeError("In docker mode programs are rendered by renderDockerRun()");
  }
  if (c.bwrapPath === null) {
    throw new OdekError(
      "SANDBOX_UNAVAILABLE",
      'Cannot run a program as bwrap is not installed: run "apt-get install bubblewrap" as root, or set "sandbox" to "docker" (a container from Dockerfile.odek) or "none" (unsandboxed) in ODEK_HOME/config.jsonc',
    );
  }
  // [op, path, order at equal depth]; tmpfs hides before anything is bound back on top of it.
  // /run (and /var/run, a link to it) holds the host's sockets: docker, D-Bus, systemd, agents.
  // A read-only mount does not stop connect() on a socket file, so it is hidden too.
  // A program sees the host's /tmp read-only (a write elsewhere in it fails visibly) and writes
  // temporary files in its host's scratch. Where it may connect to Unix sockets (approved
  // network, or no seccomp filter) /tmp is an empty read-only tmpfs instead, so no host socket
  // there is reachable; tool children keep a private tmpfs (they run no programs).
  const unixSockets = egress || !(c.seccompFile ?? null);
  const emptyTmp = toolChild || unixSockets;
  const mounts: [string, string, number, string?][] = [
    ...(emptyTmp ? [["--tmpfs", "/tmp", 0] as [string, string, number]] : []),
    ["--tmpfs", "/run", 0],
    ["--tmpfs", checked(c.home), 0],
  ];
  if (c.scratchRoot !== undefined) mounts.push(["--tmpfs", checked(c.scratchRoot), 0]);
  if (scratch !== null) mounts.push(["--bind", scratch, 1]);
  for (const root of c.protectedRoots) mounts.push(["--tmpfs", checked(root), 0]);
  for (const dir of c.hiddenPaths?.dirs ?? []) mounts.push(["--tmpfs", checked(dir), 0]);
  for (const file of c.hiddenPaths?.files ?? []) mounts.push([HIDE_FILE, checked(file), 0]);
  for (const file of c.readOnlyHomeFiles) mounts.push(["--ro-bind-try", checked(file), 1]);
  // The deno binary (not a secret) at its real path: a `deno` on PATH that links into a hidden
  // home (npx, ~/.deno/bin) still works for programs, and tool children run on it.
  mounts.push(["--ro-bind", checked(c.denoPath), 1]);
  if (toolChild) {
    mounts.push(["--ro-bind", c.toolsDir, 1]);
    if (moduleChild) mounts.push(["--ro-bind-try", checked(c.denoDir), 1]);
  }
  if (c.egressSocket !== undefined) mounts.push(["--tmpfs", dirname(checked(c.egressSocket)), 0]);
  if (egress) {
    mounts.push(["--ro-bind", checked(c.egressSocket!), 1, EGRESS_SOCKET_IN_SANDBOX]);
    if (!toolChild) mounts.push(["--ro-bind", forwarder, 1]);
  }
  for (const path of reads) if (!writes.includes(path)) mounts.push(["--ro-bind", path, 2]);
  // A write path already writable through a writable parent, with nothing hiding or read-only
  // between them, needs no bind of its own (and may not exist yet: a bind needs a source).
  const blockers = mounts.map(([, path]) => path);
  for (const path of writes) {
    if (!writes.some((other) => covers(other, path, blockers))) mounts.push(["--bind", path, 2]);
  }
  // Protected files inside a writable path (hooks, .git/config, .envrc …): read-only over it.
  // Only existing ones: bwrap would leave an empty placeholder where a missing one was mounted.
  for (const path of unique((isolated ? [] : set.readOnlyPaths ?? []).map(checked))) {
    if (writes.some((w) => w === path || covers(w, path, []))) {
      mounts.push(["--ro-bind-try", path, 3]);
    }
  }
  for (const [, path] of mounts) if (path === "/") throw new RangeError("Cannot hide or bind /");
  mounts.sort((a, b) => depth(a[3] ?? a[1]) - depth(b[3] ?? b[1]) || a[2] - b[2]);
  // A program joins its host's network namespace (entered before the launcher); everything else
  // gets a namespace of its own with only `lo`.
  const shared = !toolChild && c.netns !== undefined;
  const argv = [
    c.bwrapPath,
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    shared ? "--share-net" : "--unshare-net",
  ];
  const tmpfsBytes = c.tmpfsMaxBytes ?? DEFAULT_TMPFS_MAX_BYTES;
  if (!Number.isSafeInteger(tmpfsBytes) || tmpfsBytes < HIDE_TMPFS_BYTES) {
    throw new RangeError(`tmpfsMaxBytes must be an integer of at least 1 MiB, not ${tmpfsBytes}`);
  }
  // A fresh /dev, read-only but for its device nodes, with /dev/shm a capped tmpfs of its own.
  argv.push("--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev");
  argv.push("--size", String(tmpfsBytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev");
  argv.push("--proc", "/proc");
  // The fresh /proc's kernel knobs are writable by a sandbox whose user is root, with no
  // capability at all (their owner is root): core_pattern runs a program on the host.
  argv.push("--ro-bind", "/proc/sys", "/proc/sys");
  for (const knob of ["/proc/sysrq-trigger", "/proc/irq", "/proc/bus"]) {
    argv.push("--ro-bind-try", knob, knob);
  }
  // A scope with egress reaches the proxy through a Unix socket: its filter allows them.
  const seccomp = egress && c.seccompEgressFile ? c.seccompEgressFile : c.seccompFile;
  const filter = seccomp ? checked(seccomp) : "";
  if (filter !== "") argv.push("--seccomp", "3");
  const checks: MountCheck[] = [];
  for (const [op, path, , dest] of mounts) {
    if (op === HIDE_FILE) argv.push("--ro-bind", "/dev/null", path);
    else if (op !== "--tmpfs") argv.push(...pinnedBind(c.pin, op, path, dest ?? path, checks));
    else {
      // tmpfs lives in RAM: a private /tmp and the home get the configured cap, hiding ones next
      // to none (a program's empty /tmp is read-only).
      const big = (path === "/tmp" && toolChild) || path === checked(c.home);
      const size = big ? tmpfsBytes : HIDE_TMPFS_BYTES;
      argv.push("--size", String(size), op, path);
    }
  }
  const cacheLink = ["--symlink", `${childCache}/gen`, `${SANDBOX_DENO_DIR}/gen`];
  if (cacheCopy) argv.push("--dir", SANDBOX_DENO_DIR, ...cacheLink, ...cacheFileArgs());
  // Nothing may be written where a host path is hidden or shown empty: it would be discarded.
  if (c.scratchRoot !== undefined) argv.push("--remount-ro", checked(c.scratchRoot));
  if (emptyTmp && !toolChild) argv.push("--remount-ro", "/tmp");
  // The working directory is checked too: a workspace covered by a writable parent has no bind.
  const start = isolated ? { path: "", pin: "" } : pinnedStart(c.pin, cwd);
  const netns = shared ? c.netns!.ino : "";
  argv.push("--chdir", cwd, "--", ...sandboxCheckArgv(checks, start, inner, { netns }));
  const limit = toolChild ? null : c.pidsCgroup ?? null;
  const max = c.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  if (!Number.isSafeInteger(max) || max < 8) {
    throw new RangeError(`maxProcesses must be an integer of at least 8, not ${max}`);
  }
  // A catalogue child's launcher first opens its cache files for bwrap (`CACHE_OPENER`).
  const script = cacheCopy ? `${CACHE_OPENER}\n${SANDBOX_LAUNCHER}` : SANDBOX_LAUNCHER;
  const launcher = [...(shared ? c.netns!.enter : []), "/bin/sh", "-c", script, "odek-sandbox"];
  if (cacheCopy) launcher.push(childCache);
  launcher.push(limit === null ? "" : checked(limit), limit === null ? "" : String(max), filter);
  return { argv: [...launcher, ...argv], env, check: true };
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

/** `parent` is a strict ancestor of `path` and no blocking mount lies between them or on `path`. */
function covers(parent: string, path: string, hidden: string[]): boolean {
  const under = (p: string, root: string) =>
    p !== root && p.startsWith(root === "/" ? "/" : `${root}/`);
  return under(path, parent) &&
    !hidden.some((h) => under(h, parent) && (h === path || under(path, h)));
}

function depth(path: string): number {
  return path.split("/").filter(Boolean).length;
}
