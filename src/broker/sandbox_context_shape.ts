/**
 * The shape of a {@linkcode SandboxContext}: where and how this odek builds sandboxes (the
 * renderer's input besides the permission set; `render_sandbox.ts` re-exports it).
 *
 * @module
 */
import type { PinnedPath } from "../_util/pin_path.ts";

/** Where and how sandboxes are built. Every path is absolute and already realpathed. */
export interface SandboxContext {
  /**
   * `bwrap`: mount namespace + Deno flags; `docker`: programs in a container (see
   * `render_docker.ts`), tool children as in `bwrap` mode (bwrap when installed, else Deno flags
   * only); `none`: Deno flags only, programs unconfined.
   */
  mode: "bwrap" | "docker" | "none";
  /** The bwrap binary, or `null` when it is not installed. */
  bwrapPath: string | null;
  /** The docker client (`docker` mode), or `null`/absent when it is not installed. */
  dockerPath?: string | null;
  /** The image programs run in (`docker` mode). @default "odek:latest" (Dockerfile.odek) */
  dockerImage?: string;
  /** Where the docker client finds its engine (`DOCKER_HOST`, `DOCKER_CONTEXT`, `DOCKER_CONFIG`). */
  dockerEnv?: Record<string, string>;
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
   * The egress proxy's Unix socket (`EgressProxy.socketPath`). Without it a `proxy` network
   * policy stays offline. Its directory is hidden in every sandbox. @default no egress
   */
  egressSocket?: string;
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
  /**
   * The seccomp filter for a scope with approved network: the same as `seccompFile` but Unix-domain
   * sockets are allowed, since the program reaches the egress proxy through one. `null`/absent:
   * `seccompFile` is used, and the egress socket cannot be reached.
   */
  seccompEgressFile?: string | null;
  /**
   * Pins every bind source while the sandbox is rendered (`pinPath` from `src/_util/pin_path.ts`;
   * `null` when nothing is there): each bind then gets a check inside the sandbox, before the
   * call's program runs, that what bwrap mounted at its destination is the pinned object (see
   * `_sandbox_check.ts`). Absent: no mount check (unit tests of the renderer); descriptors above
   * 2 are closed either way. @default no pinning
   */
  pin?: (path: string) => PinnedPath | null;
  /**
   * Programs only: the session host's private scratch directory (created by the core, mode
   * 0700), bound writable at its real path and exported as `TMPDIR`. The host's `/tmp` stays
   * visible read-only (but for the workspace, added directories and granted targets under it),
   * so a write elsewhere in `/tmp` fails visibly instead of landing in a discarded copy.
   * Absent: `TMPDIR` is `/tmp`, which a program can read but not write. @default none
   */
  scratchDir?: string;
  /**
   * The directory holding every session host's scratch and host-port sockets (one per user):
   * hidden under an empty tmpfs in every sandbox, with the own `scratchDir` bound back for
   * programs. @default none
   */
  scratchRoot?: string;
  /**
   * Programs only: the session host's network namespace, which every program of the host joins
   * (so a server started by one answers a later one): `enter` is the argv prefix that joins it
   * (util-linux `nsenter --net=/proc/<holder>/ns/net --`), `ino` its inode, which the check
   * inside the sandbox compares with the namespace the program really is in. Absent: each
   * program gets a namespace of its own (`--unshare-net`). Tool children always get their own.
   * @default none
   */
  netns?: { enter: readonly string[]; ino: string };
}
