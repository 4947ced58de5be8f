/**
 * The composition root: builds the real configuration, model, broker and session store from the
 * process environment. Everything else receives its dependencies.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { createRedactor } from "../_util/create_redactor.ts";
import { type Redactor, secretEnvValues } from "../_util/redact_known_values.ts";
import { EgressProxy } from "../broker/egress_proxy.ts";
import { SandboxBroker } from "../broker/sandbox_broker.ts";
import { sandboxContextFromEnvironment } from "../broker/sandbox_context.ts";
import type { ConfigLayer, OdekConfig } from "../config/odek_config.ts";
import { type OdekPaths, resolveOdekPaths } from "../config/odek_paths.ts";
import { resolveConfig } from "../config/resolve_config.ts";
import { resolveApiKey } from "../config/resolve_api_key.ts";
import { resolveProvider } from "../config/resolve_provider.ts";
import { isInside, validateWorkspace } from "../config/validate_workspace.ts";
import { type AddDir, parseAddDir, validateAddDirs } from "../config/add_dirs.ts";
import {
  dedicatedWorkspacePath,
  provisionDedicatedWorkspace,
} from "../config/dedicated_workspace.ts";
import type { Model } from "../llm/model.ts";
import { OpenAIModel } from "../llm/openai_model.ts";
import { recordingFetch } from "../llm/recording_fetch.ts";
import { replayFetch } from "../llm/replay_fetch.ts";
import { FileSessionStore } from "../session/file_session_store.ts";
import { childDenoPath } from "./child_deno_path.ts";
import type { CliIO } from "./cli_io.ts";

/** Settings every command needs. */
export interface Settings {
  paths: OdekPaths;
  config: OdekConfig;
  /** `ODEK_API_KEY`, the preset's variable, `OPENAI_API_KEY` (`resolveApiKey`); never logged. */
  apiKey: string | undefined;
  /**
   * The one redactor of every sink: the API key, a base-URL password and secret-named environment
   * values (with their encodings), then key formats and secret-named assignments.
   */
  redact: Redactor;
  store: FileSessionStore;
}

/**
 * Resolve paths, configuration, the API key and the session store.
 *
 * @throws {OdekError} `CONFIG_INVALID` from the configuration layers.
 */
export async function loadSettings(io: CliIO, flags: ConfigLayer): Promise<Settings> {
  const paths = resolveOdekPaths(io.env, io.installDir);
  const config = await resolveConfig({ configFile: paths.configFile, env: io.env, flags });
  // ODEK_HOME must exist before any sandbox is rendered: a missing protected root cannot be
  // hidden, and the session journal is about to be created in it.
  await Deno.mkdir(paths.sessionsDir, { recursive: true, mode: 0o700 });
  const apiKey = resolveApiKey(io.env, resolveProvider(config).preset).key;
  const urlPassword = passwordOf(config.baseUrl);
  const redact = createRedactor([
    ...(apiKey ? [apiKey] : []),
    ...(urlPassword ? [urlPassword] : []),
    ...secretEnvValues(io.env),
  ]);
  const store = new FileSessionStore(paths.sessionsDir, { redact });
  return { paths, config, apiKey, redact, store };
}

/** The model for a run: the real client, optionally recording to or replaying from a cassette. */
export async function buildModel(
  settings: Settings,
  options: { model: string; baseUrl: string; record?: string; replay?: string; callerDir: string },
): Promise<Model> {
  const { config, apiKey, redact } = settings;
  let fetchImpl: typeof fetch | undefined;
  if (options.replay) fetchImpl = await replayFetch(resolve(options.callerDir, options.replay));
  else if (options.record) {
    const file = resolve(options.callerDir, options.record);
    const folder = await Deno.stat(dirname(file)).catch(() => null);
    if (!folder?.isDirectory) {
      throw new OdekError(
        "USAGE",
        `Cannot record to ${file}: the folder ${dirname(file)} does not exist. Create it first.`,
      );
    }
    await refuseToReplace(file, settings.paths.odekHome);
    fetchImpl = recordingFetch(file, { redact });
  }
  if (!options.replay && !apiKey && !isLoopbackUrl(options.baseUrl)) {
    throw new OdekError(
      "MISSING_API_KEY",
      `No API key for ${options.baseUrl}: set ODEK_API_KEY (or OPENAI_API_KEY) in the environment. Keys are never read from flags or config files.`,
    );
  }
  return new OpenAIModel({
    baseURL: options.baseUrl,
    apiKey: apiKey ?? "odek-no-key",
    model: options.model,
    requestTimeoutMs: config.timeouts.requestSeconds * 1000,
    connectTimeoutMs: config.timeouts.connectSeconds * 1000,
    streamIdleTimeoutMs: config.timeouts.streamIdleSeconds * 1000,
    retry: {
      maxAttempts: config.retry.maxAttempts,
      baseMs: config.retry.baseMs,
      maxMs: Math.max(config.retry.maxMs, config.retry.baseMs),
      retryAfterCapMs: config.retry.retryAfterCapSeconds * 1000,
    },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

/**
 * Protected roots for a workspace: ODEK_HOME always; the install directory too, unless the
 * operator explicitly chose the checkout itself or a folder inside it (working on odek itself,
 * design §4). A workspace that merely contains the install directory keeps it protected, so it is
 * refused: otherwise `--workspace ~/code` with odek in `~/code/odek` would let the model rewrite
 * the code odek runs next time.
 */
export function protectedRootsFor(
  paths: OdekPaths,
  workspace: string,
  explicit: boolean,
): string[] {
  const insideInstall = isInside(workspace, paths.installDir);
  return explicit && insideInstall && !isInside(paths.odekHome, workspace)
    ? [paths.odekHome]
    : [paths.odekHome, paths.installDir];
}

/** A resolved workspace and how it must be validated before every spawn. */
export interface ResolvedWorkspace {
  /** Real path. */
  workspace: string;
  /** The roots it was checked against (and every spawn checks it against). */
  protectedRoots: string[];
  /** The dedicated workspace: it must also stay private (owner, mode 0700). */
  dedicated: boolean;
}

/**
 * Resolve and validate the workspace: `--workspace` (relative to the caller's directory), the
 * dedicated workspace beside ODEK_HOME (`--dedicated-workspace` or config `dedicatedWorkspace`,
 * created with mode 0700 when missing, after the overlap check), or the caller's directory. A
 * `requested` path that is the dedicated workspace (a session that ran there) is validated as
 * the dedicated one.
 *
 * @throws {OdekError} `WORKSPACE_INVALID` with the path and what to do.
 */
export async function resolveWorkspace(
  settings: Settings,
  requested: string | undefined,
  callerDir: string,
  options: { dedicated?: boolean } = {},
): Promise<ResolvedWorkspace> {
  const { paths } = settings;
  const dedicatedPath = dedicatedWorkspacePath(paths.odekHome);
  const explicit = requested !== undefined;
  const path = explicit
    ? (isAbsolute(requested) ? requested : resolve(callerDir, requested))
    : options.dedicated
    ? dedicatedPath
    : callerDir;
  const dedicated = (options.dedicated && !explicit) || resolve(path) === dedicatedPath ||
    (await Deno.realPath(path).catch(() => null)) ===
      (await Deno.realPath(dedicatedPath).catch(() => undefined));
  const protectedRoots = dedicated
    ? [paths.odekHome, paths.installDir]
    : protectedRootsFor(paths, resolve(path), explicit);
  let workspace: string;
  try {
    workspace = dedicated
      ? await provisionDedicatedWorkspace(dedicatedPath, { protectedRoots })
      : await validateWorkspace(path, { protectedRoots });
  } catch (error) {
    if (error instanceof OdekError) throw error;
    throw new OdekError(
      "WORKSPACE_INVALID",
      `Cannot use workspace "${path}": ${
        (error as Error).message
      }. Choose a plain directory with --workspace <dir>.`,
      { cause: error },
    );
  }
  // Deno flag lists are comma-separated and mount paths cannot hold control characters.
  // deno-lint-ignore no-control-regex
  if (/[,\u0000-\u001f]/.test(workspace)) {
    throw new OdekError(
      "WORKSPACE_INVALID",
      `Cannot use workspace ${
        JSON.stringify(workspace)
      }: its path holds a comma or a control character, which the sandbox cannot mount. Rename it or choose another with --workspace <dir>.`,
    );
  }
  return { workspace, protectedRoots, dedicated };
}

/**
 * The directories the operator granted: config `addDirs` (absolute) and `--add-dir` flags
 * (relative to the caller's directory), parsed and validated once here so a bad one stops the
 * run before it starts; the broker validates them again before every spawn.
 *
 * @returns the parsed directories (as written) and their validated real paths
 * @throws {OdekError} `USAGE`, `CONFIG_INVALID` or `WORKSPACE_INVALID` naming the directory
 */
export async function resolveAddDirs(
  settings: Settings,
  flagDirs: readonly string[],
  callerDir: string,
): Promise<{ parsed: AddDir[]; granted: AddDir[] }> {
  const parsed = [
    ...settings.config.addDirs.map((spec) => parseAddDir(spec, undefined)),
    ...flagDirs.map((spec) => parseAddDir(spec, callerDir)),
  ];
  const roots = [settings.paths.odekHome, settings.paths.installDir];
  return { parsed, granted: await validateAddDirs(parsed, roots) };
}

/** The broker for a run; the workspace is validated again before every spawn. */
export async function buildBroker(
  settings: Settings,
  resolved: ResolvedWorkspace,
  io: CliIO,
  addDirs: readonly AddDir[] = [],
): Promise<{ broker: SandboxBroker; bwrapMissing: boolean; dockerMissing: boolean }> {
  const { workspace, protectedRoots, dedicated } = resolved;
  const home = settings.paths.home;
  if (
    settings.config.sandbox !== "none" &&
    (home === "/" || !(await Deno.stat(home).catch(() => null))?.isDirectory)
  ) {
    throw new OdekError(
      "SANDBOX_UNAVAILABLE",
      `Cannot build the sandbox: HOME is ${JSON.stringify(home)}, which ${
        home === "/" ? "is the root directory" : "is not an existing directory"
      }; every sandbox replaces the home directory with an empty one. Set HOME to your home directory.`,
    );
  }
  const deno = childDenoPath(io.env, Deno.execPath());
  if (deno.path === null) {
    throw new OdekError(
      "SANDBOX_UNAVAILABLE",
      "This compiled odek needs an external deno 2.9.6 for its tool children: install it (npm install -g deno@2.9.6) or set ODEK_DENO to its path.",
    );
  }
  const base = await sandboxContextFromEnvironment({
    odekHome: settings.paths.odekHome,
    installDir: settings.paths.installDir,
    mode: settings.config.sandbox,
    denoPath: deno.path,
    maxProcesses: settings.config.sandboxMaxProcesses,
    tmpfsMaxBytes: settings.config.sandboxTmpfsMiB * 1024 * 1024,
  });
  // Working on odek itself (an explicit workspace inside the install directory): keep it visible.
  const installVisible = !protectedRoots.includes(settings.paths.installDir);
  if (installVisible) {
    io.stderr.write(
      `odek: warning: the workspace is inside odek's own install directory ${settings.paths.installDir}: the model can change the code odek runs next time. To work on odek, run a separate copy of it.\n`,
    );
  }
  const context = installVisible
    ? { ...base, protectedRoots: base.protectedRoots.filter((root) => root !== base.installDir) }
    : base;
  const broker = new SandboxBroker({
    context,
    // Validated before every call, never cached: type, owner and mode can change mid-run.
    resolveWorkspace: () =>
      validateWorkspace(workspace, {
        protectedRoots,
        requirePrivate: dedicated,
        ...(dedicated
          ? { role: { name: "the dedicated workspace", flag: "--workspace <dir>" } }
          : {}),
      }),
    resolveAddDirs: () =>
      validateAddDirs(addDirs, [settings.paths.odekHome, settings.paths.installDir]),
    trustLevel: settings.config.trustLevel,
    shellTimeoutMs: settings.config.timeouts.shellSeconds * 1000,
    ...(await startEgress(settings, io)),
  });
  return {
    broker,
    bwrapMissing: settings.config.sandbox === "bwrap" && context.bwrapPath === null,
    dockerMissing: settings.config.sandbox === "docker" && !context.dockerPath,
  };
}

/**
 * The egress proxy of a run (docs/network.md), logging to `ODEK_HOME/logs/egress.log`. When it
 * cannot start, calls granted network stay offline and a warning says why.
 */
async function startEgress(settings: Settings, io: CliIO): Promise<{ egress?: EgressProxy }> {
  const logs = join(settings.paths.odekHome, "logs");
  try {
    await Deno.mkdir(logs, { recursive: true, mode: 0o700 });
    return {
      egress: await EgressProxy.start({
        allowDomains: settings.config.network.allowDomains,
        logFile: join(logs, "egress.log"),
      }),
    };
  } catch (error) {
    io.stderr.write(
      `odek: warning: cannot start the egress proxy (${
        (error as Error).message
      }): calls granted network will have none. Check that the temp directory and ${logs} are writable.\n`,
    );
    return {};
  }
}

/** The password in a base URL's userinfo (`https://user:pass@host/v1`), to be redacted. */
function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/**
 * `--record` replaces its file after every turn: refuse a file that is not a cassette already
 * (a source file, a session journal, the config) and anything inside `ODEK_HOME`.
 */
async function refuseToReplace(file: string, odekHome: string): Promise<void> {
  const home = await Deno.realPath(odekHome).catch(() => odekHome);
  const real = join(await Deno.realPath(dirname(file)).catch(() => dirname(file)), basename(file));
  if (isInside(real, home)) {
    throw new OdekError(
      "USAGE",
      `Cannot record to ${file}: it is inside ${home}, where odek keeps its sessions and configuration. Choose a path outside it.`,
    );
  }
  const text = await Deno.readTextFile(file).catch(() => null);
  if (text === null) return; // a new file (or one that cannot be read: writing will say why)
  let schema: unknown;
  try {
    schema = (JSON.parse(text) as { schema?: unknown } | null)?.schema;
  } catch {
    schema = undefined;
  }
  if (schema !== "odek.cassette/v1") {
    throw new OdekError(
      "USAGE",
      `Cannot record to ${file}: it exists and is not an odek cassette, and recording would replace it. Choose a new file name, or remove the file first.`,
    );
  }
}
