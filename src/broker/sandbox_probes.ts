/**
 * The probes behind `odek doctor`: each runs one real program (bwrap, docker, deno) with a short
 * timeout and reports what it saw. None throws. They live here because only src/broker starts
 * processes.
 *
 * @module
 */
import type { PermissionSet } from "./permission_set.ts";
import { renderSandbox, type SandboxContext } from "./render_sandbox.ts";
import { SandboxCheckVerdict } from "./_sandbox_check_verdict.ts";

/** How long one probe may take, in milliseconds. */
export const PROBE_TIMEOUT_MS = 10_000;

/** What one program run printed. */
export interface ProbeOutput {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run a program with a cleared environment and a timeout; a program that cannot be started, or
 * runs too long (killed), is `ok: false`.
 *
 * @param argv the program and its arguments
 * @param env the whole environment
 * @returns its output
 *
 * @example A program that is not there is a failed probe, not an exception
 * ```ts
 * import { probe } from "./sandbox_probes.ts";
 * const out = await probe(["/nonexistent/odek-probe"]);
 * if (out.ok || out.code !== null) throw new Error(JSON.stringify(out));
 * ```
 */
export async function probe(
  argv: string[],
  env: Record<string, string> = {},
): Promise<ProbeOutput> {
  try {
    const child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone
      }
    }, PROBE_TIMEOUT_MS);
    const out = await child.output().finally(() => clearTimeout(timer));
    const decode = (b: Uint8Array) => new TextDecoder().decode(b).trim();
    return {
      ok: out.success,
      code: out.code,
      stdout: decode(out.stdout),
      stderr: decode(out.stderr),
    };
  } catch (error) {
    return { ok: false, code: null, stdout: "", stderr: (error as Error).message };
  }
}

/** What a trivial bwrap sandbox showed. */
export interface BwrapProbe {
  /** The sandbox started and its program exited 0. */
  started: boolean;
  /** Network interfaces inside it (`lo` only when the network namespace works). */
  interfaces: string[];
  /** bwrap's error when it did not start. */
  error?: string;
}

/**
 * Start the sandbox a shell command would get at read scope (the real mounts, the real network
 * policy) and list its network interfaces from `/proc/net/dev`.
 *
 * @param context the sandbox context, with a usable `workspace`
 * @returns whether it started and which interfaces it has
 *
 * @example Without bwrap nothing starts, and the reason says so
 * ```ts
 * import { probeBwrapSandbox } from "./sandbox_probes.ts";
 * const result = await probeBwrapSandbox({ mode: "bwrap", bwrapPath: null, denoPath: "/d",
 *   denoDir: "/d", toolsDir: "/t", workspace: "/tmp", home: "/tmp", odekHome: "/o",
 *   installDir: "/i", protectedRoots: [], readOnlyHomeFiles: [] });
 * if (result.started || !/bwrap is not installed/.test(result.error ?? "")) throw new Error();
 * ```
 */
export async function probeBwrapSandbox(context: SandboxContext): Promise<BwrapProbe> {
  const set: PermissionSet = {
    readPaths: [context.workspace],
    writePaths: [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
  };
  let rendered;
  try {
    rendered = renderSandbox(set, { ...context, mode: "bwrap" }, {
      kind: "program",
      argv: ["bash", "-c", "tail -n +3 /proc/net/dev"],
    });
  } catch (error) {
    return { started: false, interfaces: [], error: (error as Error).message };
  }
  const out = await probe(rendered.argv, rendered.env);
  if (!out.ok) {
    // The sandbox check's `passed` token is not part of the error (a refusal's line is).
    const { rest } = SandboxCheckVerdict.of(new TextEncoder().encode(out.stderr));
    const error = new TextDecoder().decode(rest).trim() || `exit code ${out.code}`;
    return { started: false, interfaces: [], error };
  }
  const interfaces = out.stdout.split("\n").map((line) => line.split(":")[0].trim()).filter(
    Boolean,
  );
  return { started: true, interfaces };
}

/** What the docker client and engine said. */
export interface DockerProbe {
  client: string | null;
  clientVersion: string | null;
  /** The engine answered. */
  engine: boolean;
  engineVersion: string | null;
  /** The sandbox image exists in the engine. */
  image: boolean;
  /** The trivial container ran. */
  started: boolean;
  error?: string;
}

/**
 * Ask the docker client for its version and the engine's, whether the image exists, and run a
 * trivial container the way programs run (`--network none --cap-drop ALL`).
 *
 * @param dockerPath the client, or `null`
 * @param image the sandbox image
 * @param env the client's environment (`DOCKER_HOST`, …)
 * @returns what was found; `error` says what failed first
 *
 * @example No client
 * ```ts
 * import { probeDocker } from "./sandbox_probes.ts";
 * const result = await probeDocker(null, "odek:latest", {});
 * if (result.engine || result.error !== "the docker client is not installed") throw new Error();
 * ```
 */
export async function probeDocker(
  dockerPath: string | null,
  image: string,
  env: Record<string, string>,
): Promise<DockerProbe> {
  const result: DockerProbe = {
    client: dockerPath,
    clientVersion: null,
    engine: false,
    engineVersion: null,
    image: false,
    started: false,
  };
  if (dockerPath === null) return { ...result, error: "the docker client is not installed" };
  const client = await probe([dockerPath, "--version"], env);
  result.clientVersion = /version ([^\s,]+)/.exec(client.stdout)?.[1] ?? null;
  const server = await probe([dockerPath, "version", "--format", "{{.Server.Version}}"], env);
  if (!server.ok || server.stdout === "") {
    const why = server.stderr.split("\n").find((line) => line.trim() !== "") ?? "no answer";
    return { ...result, error: `the docker engine is not reachable: ${why}` };
  }
  result.engine = true;
  result.engineVersion = server.stdout;
  result.image = (await probe([dockerPath, "image", "inspect", image], env)).ok;
  if (!result.image) {
    return {
      ...result,
      error:
        `the image ${image} does not exist: build it with: docker build -f Dockerfile.odek -t ${
          image.replace(/:latest$/, "")
        } .`,
    };
  }
  const run = await probe([
    dockerPath,
    "run",
    "--rm",
    "--network",
    "none",
    "--cap-drop",
    "ALL",
    "--entrypoint",
    "",
    image,
    "true",
  ], env);
  result.started = run.ok;
  return run.ok ? result : { ...result, error: run.stderr || `exit code ${run.code}` };
}

/**
 * The version a deno binary reports (`deno --version`'s first line), or `null`.
 *
 * @param denoPath the binary
 * @returns e.g. `2.9.6`
 *
 * @example The running deno
 * ```ts
 * import { probeDenoVersion } from "./sandbox_probes.ts";
 * if (await probeDenoVersion(Deno.execPath()) !== Deno.version.deno) throw new Error();
 * ```
 */
export async function probeDenoVersion(denoPath: string): Promise<string | null> {
  const out = await probe([denoPath, "--version"]);
  return /^deno (\S+)/.exec(out.stdout)?.[1] ?? null;
}
