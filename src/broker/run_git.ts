/**
 * git as odek's own tool (design §8.7, "only the broker spawns"): the git that fetches a queued
 * run's repository and pushes its checkpoints. It works on a bare repository odek created, never on
 * a workspace: no work tree, so no in-tree attributes; system and global configuration off
 * (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), hooks and the attributes file pointed at
 * `/dev/null`, `ext::` transports refused, received objects checked (`transfer.fsckObjects`), no
 * terminal prompt. The operator's credential helper is given to this process only, on the command
 * line, after the list of helpers is reset; its environment is cleared to PATH, LANG and a HOME of
 * odek's choosing. The process leads a process group of its own and is killed as a group on
 * timeout.
 *
 * @module
 */
import { SETSID } from "./_start_program.ts";

/** Options of {@linkcode runGit}. */
export interface RunGitOptions {
  /** The bare repository (`--git-dir`); also the working directory. */
  gitdir: string;
  /** The arguments after `git --git-dir=<gitdir> -c …` (e.g. `["fetch", "--", url, ref]`). */
  args: readonly string[];
  /**
   * The operator's credential helper (git's `credential.helper` syntax: a name like `store`, or
   * `!<shell command>`), for commands that reach a remote. @default none (no credentials)
   */
  credentialHelper?: string;
  /** Environment variables added (e.g. `GIT_AUTHOR_DATE` for `commit-tree`). @default none */
  env?: Readonly<Record<string, string>>;
  /** Bytes written to git's stdin. @default none */
  input?: Uint8Array;
  /** Killed after this many milliseconds. @default 120_000 */
  timeoutMs?: number;
}

/** What git did. */
export interface RunGitResult {
  /** Its exit code (137 when it was killed on timeout). */
  code: number;
  /** Its standard output. */
  stdout: Uint8Array;
  /** Its standard error, as text (at most 64 KiB kept). */
  stderr: string;
}

/** The `-c` settings every git of odek's runs with. */
const FIXED_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.attributesFile=/dev/null",
  "core.fsmonitor=false",
  "core.askPass=",
  "protocol.ext.allow=never",
  "transfer.fsckObjects=true",
  "advice.detachedHead=false",
  "init.defaultBranch=main",
  "credential.helper=",
];

/**
 * The `--receive-pack` program for a push to a repository on this machine: git runs the other
 * side's receive-pack here, with that repository's configuration and without odek's `-c` settings,
 * so it gets its own — hooks, alternate-refs command, fsmonitor and auto-gc off, and no update of
 * a checked-out branch (whose filters would run).
 */
export const LOCAL_RECEIVE_PACK: string = `git ${
  [
    "core.hooksPath=/dev/null",
    "core.alternateRefsCommand=true",
    "receive.denyCurrentBranch=refuse",
    "receive.denyDeleteCurrent=refuse",
    "core.fsmonitor=false",
    "receive.autogc=false",
    "gc.auto=0",
  ].map((setting) => `-c ${setting}`).join(" ")
} receive-pack`;

/**
 * Whether git reaches `remote` by running its receive-pack on this machine: git's own rule,
 * anything that is neither `scheme://…` (other than `file://`) nor scp-like `host:path`.
 *
 * @example
 * ```ts
 * import { isLocalRemote } from "./run_git.ts";
 * if (!isLocalRemote("../other.git") || isLocalRemote("git@host:app.git")) throw new Error("rule");
 * ```
 */
export function isLocalRemote(remote: string): boolean {
  if (remote.startsWith("file://")) return true;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(remote)) return false;
  return !/^[^/]*:/.test(remote);
}

/**
 * Run git on odek's own bare repository.
 *
 * @param options the repository, arguments, credential helper, input and timeout
 * @returns its exit code and output (a failing git is not thrown: the caller says what failed)
 * @throws the operating system's error when git cannot be started (not installed)
 *
 * @example Create a bare repository and read its HEAD
 * ```ts
 * import { runGit } from "./run_git.ts";
 * const gitdir = await Deno.makeTempDir();
 * const init = await runGit({ gitdir, args: ["init", "--bare", "--quiet", gitdir] });
 * if (init.code !== 0) throw new Error(init.stderr);
 * const head = await runGit({ gitdir, args: ["symbolic-ref", "HEAD"] });
 * if (new TextDecoder().decode(head.stdout).trim() !== "refs/heads/main") throw new Error("HEAD");
 * await Deno.remove(gitdir, { recursive: true });
 * ```
 */
export async function runGit(options: RunGitOptions): Promise<RunGitResult> {
  const config = [...FIXED_CONFIG];
  if (options.credentialHelper) config.push(`credential.helper=${options.credentialHelper}`);
  const argv = [
    "git",
    `--git-dir=${options.gitdir}`,
    ...config.flatMap((setting) => ["-c", setting]),
    ...options.args,
  ];
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    LANG: "C",
    HOME: options.gitdir,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    ...options.env,
  };
  const [program, ...args] = SETSID ? [SETSID, ...argv] : argv;
  const child = new Deno.Command(program, {
    args,
    cwd: options.gitdir,
    clearEnv: true,
    env,
    stdin: options.input ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      Deno.kill(SETSID ? -child.pid : child.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }, options.timeoutMs ?? 120_000);
  try {
    // Read while writing: git answers as it reads (cat-file --batch), so a full pipe would stall.
    const output = child.output();
    if (options.input) {
      const writer = child.stdin.getWriter();
      // git may stop reading (an error): the output below still says why.
      await writer.write(options.input).catch(() => {});
      await writer.close().catch(() => {});
    }
    const out = await output;
    const stderr = new TextDecoder().decode(out.stderr.subarray(0, 65_536));
    return { code: out.signal ? 137 : out.code, stdout: out.stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}
