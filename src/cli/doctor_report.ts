/**
 * What `odek doctor` finds: the layers that protect a run, the versions, the paths and the
 * workspace, gathered by really starting a trivial sandbox of the configured kind.
 *
 * @module
 */
import { type CoreOrigin, coreOrigin } from "../_util/core_origin.ts";
import { DOCKER_PIDS_LIMIT } from "../broker/render_docker.ts";
import type { SandboxContext } from "../broker/render_sandbox.ts";
import { sandboxContextFromEnvironment } from "../broker/sandbox_context.ts";
import type { AddDir } from "../config/add_dirs.ts";
import { parseAddDir, validateAddDirs } from "../config/add_dirs.ts";
import { dedicatedWorkspacePath } from "../config/dedicated_workspace.ts";
import { readOnlyWorkspace } from "../config/read_only_workspace.ts";
import { HostNetwork } from "../broker/host_network.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { LayerFileReport } from "../config/resolve_config.ts";
import type { CliIO } from "./cli_io.ts";
import {
  type DockerProbe,
  probe,
  probeBwrapSandbox,
  probeDenoVersion,
  probeDocker,
} from "../broker/sandbox_probes.ts";
import { ODEK_VERSION } from "./version.ts";
import { probeContainmentLayers } from "./_doctor_layers.ts";

/** One protection layer: whether it is active for runs, and what was seen. */
export interface DoctorLayer {
  /** `active`: protects runs now; `inactive`: available but not used by this config;
   * `unavailable`: missing or not working. */
  status: "active" | "inactive" | "unavailable";
  detail: string;
}

/** The whole report (`odek doctor --json` prints it). */
export interface DoctorReport {
  ok: boolean;
  /** Every reason `ok` is false, each with what to do. */
  problems: string[];
  odek: { version: string; configFile: string; configFileExists: boolean; odekHome: string };
  installDir: string;
  /** How odek was started: the installed launcher (`deno task install`), if any, and the binary. */
  launcher: {
    /** The launcher that exec'd this odek (`ODEK_LAUNCHER`), or `null` (deno run / deno task). */
    path: string | null;
    /** The deno binary running odek. */
    binary: string;
    /** Set when the binary would not last (inside npm's npx cache, which npm prunes). */
    warning?: string;
    /**
     * What the core runs from: `bundle` (the installed bundle, `bundle` its folder) or `sources`
     * (the checkout's modules; `stale` says why an installed bundle did not run).
     */
    code: CoreOrigin;
  };
  deno: {
    /** The deno running odek. */
    core: { version: string; path: string };
    /** The deno tool children run with, and where it came from (`self`, `ODEK_DENO`, `PATH`). */
    children: { version: string | null; path: string | null; source: string; compiled: boolean };
  };
  sandbox: { configured: "bwrap" | "docker" | "none"; started: boolean };
  layers: {
    denoFlags: DoctorLayer;
    bwrap: DoctorLayer & { path: string | null; version: string | null };
    networkNamespace: DoctorLayer;
    /** Whether the programs of one session share a loopback (a bg_start server answers). */
    sharedLoopback: DoctorLayer;
    egressGuard: DoctorLayer;
    docker: DoctorLayer & Omit<DockerProbe, "error">;
    pidsLimit: DoctorLayer;
    seccomp: DoctorLayer;
    rootSecrets: DoctorLayer;
  };
  workspace: {
    requested: string;
    kind: "current directory" | "explicit" | "dedicated";
    ok: boolean;
    path?: string;
    error?: string;
    /** Set when the workspace's file system refuses writes (nothing is refused for it). */
    readOnly?: string;
  };
  addDirs: { spec: string; ok: boolean; path?: string; readOnly?: boolean; error?: string }[];
  /**
   * Each configuration layer file looked at (`secrets.env`, the user file, the workspace's
   * `odek.jsonc`, misnamed ones) with its status, and the warnings the layers gave (each project
   * key ignored, by name).
   */
  config: { files: LayerFileReport[]; warnings: string[] };
}

/** What to check besides the configuration. */
export interface DoctorOptions {
  workspace?: string;
  dedicated: boolean;
  addDirs: string[];
}

/**
 * Gather the report. Never throws for a failed check: each becomes a problem.
 *
 * @param runtime the runtime a run would use (paths, configuration, the children's deno)
 * @param io the CLI's environment and caller directory
 * @param options the workspace to check and the added directories
 * @returns the report
 *
 * @example Check the current directory (the probes really run)
 * ```ts ignore
 * import { doctorReport } from "./doctor_report.ts";
 * const report = await doctorReport(runtime, io, { dedicated: false, addDirs: [] });
 * console.log(report.ok ? "ok" : report.problems.join("\n"));
 * ```
 */
export async function doctorReport(
  runtime: Runtime,
  io: CliIO,
  options: DoctorOptions,
): Promise<DoctorReport> {
  const { paths, config } = runtime;
  const problems: string[] = [];
  const workspace = await checkWorkspace(runtime, io, options);
  if (!workspace.ok) problems.push(workspace.error!);
  const addDirs = await checkAddDirs(runtime, io, options.addDirs, problems);
  const configLayers = await checkConfig(runtime, workspace.path, problems);
  const children = runtime.childDeno;
  const childVersion = children.path === null
    ? null
    : children.source === "self"
    ? Deno.version.deno
    : await probeDenoVersion(children.path);
  if (children.path === null) {
    problems.push(
      "No deno for the tool children: install deno 2.9.6 (npm install -g deno@2.9.6) or set ODEK_DENO.",
    );
  }
  const base = await sandboxContextFromEnvironment({
    odekHome: paths.odekHome,
    installDir: paths.installDir,
    mode: config.sandbox,
    denoPath: children.path ?? Deno.execPath(),
    env: { ...runtime.env, HOME: paths.home },
  });
  const scratch = workspace.path === undefined
    ? await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-doctor-" }))
    : undefined;
  const context: SandboxContext = { ...base, workspace: workspace.path ?? scratch! };
  try {
    const bwrapVersion = base.bwrapPath ? (await probe([base.bwrapPath, "--version"])).stdout : "";
    const bwrap = base.bwrapPath ? await probeBwrapSandbox(context) : null;
    const dockerPath = base.dockerPath ?? findDocker(runtime.env.PATH);
    const docker = await probeDocker(
      dockerPath,
      base.dockerImage ?? "odek:latest",
      base.dockerEnv ?? {},
    );
    const mode = config.sandbox;
    const started = mode === "none" ||
      (mode === "bwrap" ? bwrap?.started === true : docker.started);
    if (mode === "bwrap" && !started) {
      problems.push(
        base.bwrapPath === null
          ? 'sandbox is "bwrap" but bwrap is not installed: run "apt-get install bubblewrap" as root, or set "sandbox" to "docker" or "none" in ODEK_HOME/config.jsonc.'
          : `sandbox is "bwrap" but a trivial sandbox did not start: ${bwrap?.error}. Check that user namespaces are allowed (sysctl kernel.unprivileged_userns_clone=1) or run odek in a container with --security-opt seccomp=unconfined.`,
      );
    }
    if (mode === "docker" && !started) {
      problems.push(
        `sandbox is "docker" but no container started (${
          docker.error?.replace(/[.?!\s]+$/, "")
        }): start the docker engine (and build the image: docker build -f Dockerfile.odek -t odek .), or set "sandbox" to "bwrap" (apt-get install bubblewrap) in ODEK_HOME/config.jsonc.`,
      );
    }
    const onlyLo = bwrap?.started === true && bwrap.interfaces.join(",") === "lo";
    const sharedLoopback = await probeSharedLoopback(base, mode, bwrap?.started === true);
    if (workspace.ok) {
      const readOnly = await readOnlyWorkspace(workspace.path!);
      if (readOnly) workspace.readOnly = readOnly;
    }
    const more = await probeContainmentLayers(base, config.network.allowDomains, mode);
    const { error: _dockerError, ...dockerFacts } = docker;
    return {
      ok: problems.length === 0,
      problems,
      odek: {
        version: ODEK_VERSION,
        configFile: paths.configFile,
        configFileExists: await Deno.stat(paths.configFile).then((i) => i.isFile, () => false),
        odekHome: paths.odekHome,
      },
      installDir: paths.installDir,
      launcher: launcherFacts(runtime.env.ODEK_LAUNCHER),
      deno: {
        core: { version: Deno.version.deno, path: Deno.execPath() },
        children: {
          version: childVersion,
          path: children.path,
          source: children.source,
          compiled: children.compiled,
        },
      },
      sandbox: { configured: mode, started },
      layers: {
        denoFlags: {
          status: "active",
          detail:
            "tool children run with --no-prompt --no-remote --cached-only and --allow-read/--allow-write scoped to each call",
        },
        bwrap: {
          status: bwrap?.started ? (mode === "none" ? "inactive" : "active") : "unavailable",
          detail: base.bwrapPath === null
            ? "not installed (apt-get install bubblewrap)"
            : bwrap?.started
            ? `a trivial sandbox started${mode === "none" ? ' (not used: sandbox is "none")' : ""}${
              mode === "docker" ? " (used for tool children; programs run in docker)" : ""
            }`
            : `installed but a sandbox did not start: ${bwrap?.error}`,
          path: base.bwrapPath,
          version: bwrapVersion.replace(/^bubblewrap /, "") || null,
        },
        networkNamespace: mode === "docker"
          ? {
            status: docker.started ? "active" : "unavailable",
            detail: "containers run with --network none",
          }
          : {
            status: onlyLo ? (mode === "none" ? "inactive" : "active") : "unavailable",
            detail: bwrap?.started
              ? `interfaces inside a sandbox: ${bwrap.interfaces.join(", ") || "(none)"}`
              : "needs a working bwrap",
          },
        sharedLoopback,
        egressGuard: more.egressGuard,
        docker: {
          status: docker.started ? (mode === "docker" ? "active" : "inactive") : "unavailable",
          detail: docker.error ??
            `engine ${docker.engineVersion}, a trivial container started${
              mode === "docker" ? "" : ` (not used: sandbox is "${mode}")`
            }`,
          ...dockerFacts,
        },
        pidsLimit: mode === "docker"
          ? {
            status: docker.started ? "active" : "unavailable",
            detail: `--pids-limit ${DOCKER_PIDS_LIMIT}`,
          }
          : more.pidsLimit,
        seccomp: more.seccomp,
        rootSecrets: more.rootSecrets,
      },
      workspace,
      addDirs,
      config: configLayers,
    };
  } finally {
    if (scratch) await Deno.remove(scratch, { recursive: true });
  }
}

/** Start (and stop) a session host's network namespace, as a host would. */
async function probeSharedLoopback(
  base: Omit<SandboxContext, "workspace">,
  mode: "bwrap" | "docker" | "none",
  bwrapWorks: boolean,
): Promise<DoctorLayer> {
  if (mode !== "bwrap" || !bwrapWorks || base.bwrapPath === null) {
    return {
      status: mode === "bwrap" ? "unavailable" : "inactive",
      detail: mode === "bwrap" ? "needs a working bwrap" : `not used: sandbox is "${mode}"`,
    };
  }
  const started = await HostNetwork.start({
    bwrapPath: base.bwrapPath,
    denoPath: base.denoPath,
    toolsDir: base.toolsDir,
  });
  if (!(started instanceof HostNetwork)) {
    return {
      status: "unavailable",
      detail:
        `programs fall back to one network namespace per command (${started.reason}): a server started with bg_start cannot be reached from a later shell call, and host ports are not forwarded`,
    };
  }
  await started.close();
  return {
    status: "active",
    detail:
      "the programs of a session share one network namespace with only lo (bg_start servers answer later shell calls)",
  };
}

async function checkWorkspace(
  runtime: Runtime,
  io: CliIO,
  options: DoctorOptions,
): Promise<DoctorReport["workspace"]> {
  const dedicated = options.workspace === undefined &&
    (options.dedicated || runtime.config.dedicatedWorkspace);
  const kind = dedicated ? "dedicated" : options.workspace ? "explicit" : "current directory";
  const requested = dedicated
    ? dedicatedWorkspacePath(runtime.paths.odekHome)
    : options.workspace ?? io.callerDir;
  try {
    const resolved = await runtime.resolveWorkspace({
      ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      dedicated,
    });
    return { requested, kind, ok: true, path: resolved.workspace };
  } catch (error) {
    return { requested, kind, ok: false, error: (error as Error).message };
  }
}

async function checkConfig(
  runtime: Runtime,
  workspace: string | undefined,
  problems: string[],
): Promise<DoctorReport["config"]> {
  if (workspace === undefined) {
    return { files: [], warnings: [...runtime.configWarnings] };
  }
  try {
    const host = await runtime.configFor(workspace);
    return { files: host.files, warnings: host.warnings };
  } catch (error) {
    problems.push((error as Error).message);
    return { files: [], warnings: [...runtime.configWarnings] };
  }
}

async function checkAddDirs(
  runtime: Runtime,
  io: CliIO,
  flagDirs: string[],
  problems: string[],
): Promise<DoctorReport["addDirs"]> {
  const specs = [
    ...runtime.config.addDirs.map((spec) => [spec, undefined] as const),
    ...flagDirs.map((spec) => [spec, io.callerDir] as const),
  ];
  const roots = [runtime.paths.odekHome, runtime.paths.installDir];
  const out: DoctorReport["addDirs"] = [];
  for (const [spec, base] of specs) {
    try {
      const parsed: AddDir = parseAddDir(spec, base);
      const [granted] = await validateAddDirs([parsed], roots);
      out.push({ spec, ok: true, path: granted.path, readOnly: granted.readOnly });
    } catch (error) {
      problems.push((error as Error).message);
      out.push({ spec, ok: false, error: (error as Error).message });
    }
  }
  return out;
}

function findDocker(path: string | undefined): string | null {
  for (const dir of (path ?? "/usr/bin:/bin").split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      const info = Deno.statSync(`${dir}/docker`);
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) return `${dir}/docker`;
    } catch {
      // not here
    }
  }
  return null;
}

/** The launcher and binary facts (`ODEK_LAUNCHER` is set by the installed launcher). */
function launcherFacts(launcher: string | undefined): DoctorReport["launcher"] {
  const binary = Deno.execPath();
  const path = launcher && launcher.startsWith("/") ? launcher : null;
  return {
    path,
    binary,
    code: coreOrigin(),
    ...(/\/_npx\//.test(binary)
      ? {
        warning:
          "this deno is inside npm's npx cache, which npm prunes: install the odek command with deno task install",
      }
      : {}),
  };
}
