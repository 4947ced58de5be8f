/**
 * The `docker` sandbox for programs (`sandbox: "docker"`, design §2): where bwrap is missing, a
 * shell command runs in a fresh container from the image built from `Dockerfile.odek`.
 *
 * @module
 */
import { isAbsolute, normalize } from "node:path";
import type { PermissionSet } from "./permission_set.ts";
import { SANDBOX_PATH, type SandboxContext } from "./render_sandbox.ts";

/** The image programs run in unless the context names another (`docker build -t odek`). */
export const DEFAULT_DOCKER_IMAGE = "odek:latest";
/** Most processes one container may hold (a fork bomb stops there). */
export const DOCKER_PIDS_LIMIT = 1024;

/** Options for {@linkcode renderDockerRun}. */
export interface RenderDockerRunOptions {
  /** The container's name, so a timeout can `docker kill` it (`odek-<random>`). */
  name: string;
  /** The user and group the program runs as (odek's own, so files it writes are the user's). */
  uid: number;
  gid: number;
}

/**
 * Render `docker run` for one program. The container: `--rm`, `--init` (a pid 1 that reaps and
 * forwards signals), `--network none` (no network at all: the egress proxy does not exist yet, so
 * an approved `network` part gets none either), `--cap-drop ALL`, `no-new-privileges`, a pids
 * limit, a read-only root file system from the image, the host's `/tmp` read-only with the
 * session host's scratch writable (`TMPDIR`), a fresh writable home (tmpfs),
 * the user mapped to odek's uid:gid; bind mounts (never `-v`, which would create a missing source)
 * for the workspace (read-only unless the set writes it), the set's other read and write paths,
 * and the configured read-only home files, each at its real path; odek's data and install
 * directories are simply not mounted. The environment is the sandbox's (`PATH`, `HOME`, `PWD`
 * and `OLDPWD` = the workspace, …), passed as `-e` entries: it never holds a secret.
 *
 * @param set the scope of the call
 * @param context paths of this odek; `dockerPath` and `dockerImage` are used
 * @param argv the program, e.g. `["bash", "-c", "make test"]`
 * @param options the container name and the user to map
 * @returns the docker client's argv and its environment (spawn with `clearEnv: true`)
 * @throws {RangeError} a path that is relative, not normalised, or holds a comma or a control
 *   character; a context without a docker client
 *
 * @example A read-only workspace
 * ```ts
 * import { renderDockerRun } from "./render_docker.ts";
 * const { argv } = renderDockerRun(
 *   { readPaths: ["/srv/ws"], writePaths: [], network: { type: "none" }, runBinaries: [], envNames: [] },
 *   { mode: "docker", bwrapPath: null, dockerPath: "/usr/bin/docker", denoPath: "/usr/bin/deno",
 *     denoDir: "/d", toolsDir: "/opt/odek/tools", workspace: "/srv/ws", home: "/home/u",
 *     odekHome: "/home/u/.odek", installDir: "/opt/odek", protectedRoots: [], readOnlyHomeFiles: [] },
 *   ["bash", "-c", "ls"],
 *   { name: "odek-1", uid: 1000, gid: 1000 },
 * );
 * if (!argv.includes("type=bind,source=/srv/ws,target=/srv/ws,readonly")) throw new Error(argv.join(" "));
 * ```
 */
export function renderDockerRun(
  set: PermissionSet,
  context: SandboxContext,
  argv: string[],
  options: RenderDockerRunOptions,
): { argv: string[]; env: Record<string, string> } {
  const c = context;
  if (!c.dockerPath) throw new RangeError("renderDockerRun() needs context.dockerPath");
  const writes = new Set(set.writePaths.map(checked));
  const reads = [...new Set([c.workspace, ...set.readPaths, ...writes].map(checked))].sort();
  const env: Record<string, string> = {
    ...c.extraEnv,
    PATH: SANDBOX_PATH,
    HOME: checked(c.home),
    PWD: checked(c.workspace),
    OLDPWD: checked(c.workspace),
    LANG: "C.UTF-8",
    TMPDIR: c.scratchDir ? checked(c.scratchDir) : "/tmp",
    NO_COLOR: "1",
  };
  const out = [c.dockerPath, "run", "--rm", "-i", "--init", "--name", options.name];
  out.push("--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges");
  out.push("--pids-limit", String(DOCKER_PIDS_LIMIT), "--read-only");
  out.push("--user", `${options.uid}:${options.gid}`, "--entrypoint", "");
  // As in a bwrap sandbox: the host's /tmp read-only (a write elsewhere in it fails instead of
  // vanishing with the container), the host's scratch writable as TMPDIR, every other host's
  // scratch hidden.
  out.push("--mount", bind("/tmp", true), "--tmpfs", `${env.HOME}:rw,exec,mode=1777`);
  // Writable: docker creates the scratch's mount point in it (it cannot remount it read-only after).
  if (c.scratchRoot) out.push("--tmpfs", `${checked(c.scratchRoot)}:rw,size=1m,mode=0700`);
  if (c.scratchDir) out.push("--mount", bind(checked(c.scratchDir), false));
  for (const file of c.readOnlyHomeFiles) out.push("--mount", bind(checked(file), true));
  // As in renderSandbox: a write path writable through a writable parent with nothing read-only
  // or hidden between needs no mount of its own (and may not exist yet).
  const blockers = [
    "/tmp",
    env.HOME,
    ...c.readOnlyHomeFiles,
    ...reads.filter((p) => !writes.has(p)),
  ];
  for (const path of reads) {
    if (writes.has(path) && [...writes].some((other) => covers(other, path, blockers))) continue;
    out.push("--mount", bind(path, !writes.has(path)));
  }
  // The workspace's protected files read-only over a writable workspace (existing ones only).
  for (const path of set.readOnlyPaths ?? []) {
    if ([...writes].some((w) => w === path || covers(w, path, []))) {
      out.push("--mount", bind(checked(path), true));
    }
  }
  for (const [name, value] of Object.entries(env)) out.push("-e", `${name}=${value}`);
  out.push("-w", checked(c.workspace), c.dockerImage ?? DEFAULT_DOCKER_IMAGE, ...argv);
  const clientEnv: Record<string, string> = { PATH: SANDBOX_PATH, HOME: env.HOME, ...c.dockerEnv };
  return { argv: out, env: clientEnv };
}

function covers(parent: string, path: string, blockers: string[]): boolean {
  const under = (p: string, root: string) =>
    p !== root && p.startsWith(root === "/" ? "/" : `${root}/`);
  return under(path, parent) &&
    !blockers.some((b) => under(b, parent) && (b === path || under(path, b)));
}

function bind(path: string, readOnly: boolean): string {
  return `type=bind,source=${path},target=${path}${readOnly ? ",readonly" : ""}`;
}

function checked(path: string): string {
  // Commas split --mount's fields and control characters have no place in a mount path.
  // deno-lint-ignore no-control-regex
  if (!isAbsolute(path) || normalize(path) !== path || /[,\x00-\x1f]/.test(path)) {
    throw new RangeError(
      `Cannot render the container path ${
        JSON.stringify(path)
      }: paths must be absolute, normalized, and hold no comma or control character`,
    );
  }
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}
