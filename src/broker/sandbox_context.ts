/**
 * Build the {@linkcode SandboxContext} of this machine from the environment.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { pinPath } from "../_util/pin_path.ts";
import { findBwrap } from "./find_bwrap.ts";
import { DEFAULT_DOCKER_IMAGE } from "./render_docker.ts";
import { findPidsCgroup } from "./find_pids_cgroup.ts";
import { writeSeccompFilter } from "./_seccomp_filter.ts";
import type { SandboxContext } from "./render_sandbox.ts";

/** Options for {@linkcode sandboxContextFromEnvironment}. */
export interface SandboxContextFromEnvironmentOptions {
  /** odek's data directory (config, sessions, logs): hidden in every sandbox. */
  odekHome: string;
  /** The directory holding `main.ts` and `tools/`: hidden in every sandbox but `tools/`. */
  installDir: string;
  /**
   * `bwrap` (default in config), `docker` (programs in a container from Dockerfile.odek) or
   * `none` (operator's explicit choice to run unconfined).
   */
  mode: "bwrap" | "docker" | "none";
  /** The deno that runs tool children. @default Deno.execPath() */
  denoPath?: string;
  /**
   * Processes and threads one shell sandbox may hold at once (the fork-bomb bound), enforced
   * through a pids cgroup where {@linkcode findPidsCgroup} finds one. @default 1024
   */
  maxProcesses?: number;
  /** Size cap of each sandbox's `/tmp` and home tmpfs, in bytes. @default 1 GiB */
  tmpfsMaxBytes?: number;
  /**
   * The environment to read `HOME`, `DENO_DIR`, `XDG_CACHE_HOME`, `PATH`, `ODEK_DOCKER_IMAGE`
   * and the `DOCKER_*` variables from (the runtime passes the one it was given).
   * @default this process's environment
   */
  env?: Record<string, string | undefined>;
}

/**
 * Fill a sandbox context from the environment: `home` from `HOME`; `denoDir` from `DENO_DIR`,
 * else `$XDG_CACHE_HOME/deno`, else `~/.cache/deno`; `toolsDir` = `<installDir>/tools`;
 * `bwrapPath` from {@linkcode findBwrap}; `readOnlyHomeFiles` = `~/.gitconfig` when it exists;
 * `protectedRoots` = `[odekHome, installDir]`. In `docker` mode also `dockerPath` (`docker` on
 * `PATH`), `dockerImage` (`ODEK_DOCKER_IMAGE`, else `odek:latest`) and `dockerEnv`
 * (`DOCKER_HOST`, `DOCKER_CONTEXT`, `DOCKER_CONFIG` when set). In `bwrap` mode `pidsCgroup` from
 * {@linkcode findPidsCgroup} (null where none is usable: shell sandboxes then have no process
 * limit, which `odek doctor` reports). Unless the mode is `none`, `seccompFile` and
 * `seccompEgressFile` from `writeSeccompFilter` (the filters refusing Unix-domain sockets — the
 * egress one allows them — and more, written under `ODEK_HOME/sandbox/` when ODEK_HOME exists);
 * when odek runs as root, `hiddenPaths` = the existing {@linkcode ROOT_SECRET_DIRS} and
 * {@linkcode ROOT_SECRET_FILES} and the SSH host keys; `pin` = `pinPath`, so every bind of every
 * sandbox is pinned when it is rendered and checked inside the sandbox before anything runs.
 *
 * Every path is realpathed when it exists. A protected root that does not exist yet is left out
 * (bwrap cannot mount over a missing path under the read-only `/`); one inside the home is
 * hidden by the home's tmpfs anyway, and file tools never reach past their granted paths.
 *
 * Needs `--allow-env` (HOME, DENO_DIR, XDG_CACHE_HOME, PATH) unless `env` is given,
 * `--allow-read` and `--allow-run` (to probe bwrap). The root secrets are computed against the
 * `HOME` of `env`: a caller that replaces the home passes the replacement here, so the real home
 * (`/root`) is hidden like any other root secret.
 *
 * @param options the two protected roots, the mode and the deno to use
 * @returns the context, without the workspace (resolved before every call)
 * @throws {OdekError} `CONFIG_INVALID` when `HOME` is not set or not absolute
 *
 * @example Build a context
 * ```ts
 * import { sandboxContextFromEnvironment } from "./sandbox_context.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const context = await sandboxContextFromEnvironment({ odekHome: `${dir}/home`, installDir: dir, mode: "none" });
 *   if (context.toolsDir !== `${await Deno.realPath(dir)}/tools`) throw new Error("unexpected tools dir");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function sandboxContextFromEnvironment(
  options: SandboxContextFromEnvironmentOptions,
): Promise<Omit<SandboxContext, "workspace">> {
  const env = options.env ?? processEnv();
  const rawHome = env.HOME;
  if (rawHome === undefined || !rawHome.startsWith("/")) {
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot build the sandbox as HOME is ${
        rawHome === undefined ? "not set" : `"${rawHome}"`
      }: set HOME to the absolute path of your home directory`,
    );
  }
  const home = await realOrSelf(rawHome);
  const xdgCache = env.XDG_CACHE_HOME;
  const denoDir = await realOrSelf(
    env.DENO_DIR ??
      (xdgCache?.startsWith("/") ? join(xdgCache, "deno") : join(home, ".cache", "deno")),
  );
  const installDir = await realOrSelf(options.installDir);
  const odekHome = await realOrSelf(options.odekHome);
  const protectedRoots: string[] = [];
  for (const root of [odekHome, installDir]) if (await exists(root)) protectedRoots.push(root);
  const gitconfig = join(home, ".gitconfig");
  const dockerEnv: Record<string, string> = {};
  for (const name of ["DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"]) {
    const value = env[name];
    if (value) dockerEnv[name] = value;
  }
  return {
    mode: options.mode,
    bwrapPath: await findBwrap({ path: env.PATH ?? "/usr/bin:/bin" }),
    ...(options.mode === "docker"
      ? {
        dockerPath: findOnPath("docker", env.PATH ?? "/usr/bin:/bin"),
        dockerImage: env.ODEK_DOCKER_IMAGE || DEFAULT_DOCKER_IMAGE,
        dockerEnv,
      }
      : {}),
    denoPath: await realOrSelf(options.denoPath ?? Deno.execPath()),
    denoDir,
    toolsDir: join(installDir, "tools"),
    home,
    odekHome,
    installDir,
    protectedRoots,
    readOnlyHomeFiles: (await exists(gitconfig)) ? [gitconfig] : [],
    pidsCgroup: options.mode === "bwrap" ? await pidsCgroupDir() : null,
    seccompFile: options.mode !== "none" ? await writeSeccompFilter(odekHome) : null,
    seccompEgressFile: options.mode !== "none"
      ? await writeSeccompFilter(odekHome, { allowUnixSockets: true })
      : null,
    hiddenPaths: options.mode !== "none" && (await ownUid()) === 0
      ? await rootSecrets(home)
      : { dirs: [], files: [] },
    pin: (path) => pinPath(path),
    ...(options.maxProcesses !== undefined ? { maxProcesses: options.maxProcesses } : {}),
    ...(options.tmpfsMaxBytes !== undefined ? { tmpfsMaxBytes: options.tmpfsMaxBytes } : {}),
  };
}

/** The variables this module reads, from this process (each needs `--allow-env` of its name). */
function processEnv(): Record<string, string | undefined> {
  const names = ["HOME", "DENO_DIR", "XDG_CACHE_HOME", "PATH", "ODEK_DOCKER_IMAGE"];
  return Object.fromEntries(
    [...names, "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"].map((n) => [n, Deno.env.get(n)]),
  );
}

/** The first executable file named `name` in the `:`-separated `path`, or `null`. */
function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      const info = Deno.statSync(join(dir, name));
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Root-only secrets on `/` a sandbox whose user is root could read (DAC lets an owner read its
 * 0600 files without any capability): hidden when odek runs as root.
 */
export const ROOT_SECRET_DIRS = ["/root", "/etc/ssl/private", "/etc/sudoers.d", "/var/lib/sudo"];
/** See {@linkcode ROOT_SECRET_DIRS}; plus every `/etc/ssh/ssh_host_*_key`. */
export const ROOT_SECRET_FILES = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/security/opasswd",
];

/** This process's uid: `Deno.uid()` needs `--allow-sys`, which the core may lack. */
async function ownUid(): Promise<number | null> {
  try {
    return Deno.uid();
  } catch {
    const probe = await Deno.makeTempFile({ prefix: "odek-uid-" });
    try {
      return (await Deno.stat(probe)).uid;
    } finally {
      await Deno.remove(probe);
    }
  }
}

async function rootSecrets(home: string): Promise<{ dirs: string[]; files: string[] }> {
  const dirs: string[] = [];
  const files: string[] = [];
  for (const dir of ROOT_SECRET_DIRS) {
    if (dir !== home && (await Deno.lstat(dir).catch(() => null))?.isDirectory) dirs.push(dir);
  }
  const keys: string[] = [];
  try {
    for await (const entry of Deno.readDir("/etc/ssh")) {
      if (/^ssh_host_.*_key$/.test(entry.name)) keys.push(join("/etc/ssh", entry.name));
    }
  } catch {
    // No /etc/ssh.
  }
  for (const file of [...ROOT_SECRET_FILES, ...keys]) {
    if ((await Deno.lstat(file).catch(() => null))?.isFile) files.push(file);
  }
  return { dirs, files };
}

async function pidsCgroupDir(): Promise<string | null> {
  const probe = await findPidsCgroup();
  return probe.type === "cgroup" ? probe.dir : null;
}

async function realOrSelf(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return resolve(path);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
