/**
 * The runtime's composition (private to `runtime/`): the settings every session host shares
 * (paths, configuration, API key, redactor, session store), and per host the model, the
 * workspace, the added directories and the broker. Nothing here reads the process: the
 * environment, the caller's directory and the injectable parts come from `createRuntime`'s
 * options.
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { createRedactor } from "../_util/create_redactor.ts";
import { type Redactor, secretEnvValues } from "../_util/redact_known_values.ts";
import { EgressProxy } from "../broker/egress_proxy.ts";
import type { SandboxContext } from "../broker/render_sandbox.ts";
import { SandboxBroker } from "../broker/sandbox_broker.ts";
import type { ConfigLayer, OdekConfig } from "../config/odek_config.ts";
import { mcpSecretValues } from "../config/mcp_server_config.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import { type OdekPaths, resolveOdekPaths } from "../config/odek_paths.ts";
import { type ConfigLayers, loadConfigLayers, mergeUserLayers } from "../config/resolve_config.ts";
import { resolveApiKey } from "../config/resolve_api_key.ts";
import { resolveProvider } from "../config/resolve_provider.ts";
import { isInside, validateWorkspace } from "../config/validate_workspace.ts";
import { type AddDir, parseAddDir, validateAddDirs } from "../config/add_dirs.ts";
import {
  dedicatedWorkspacePath,
  provisionDedicatedWorkspace,
} from "../config/dedicated_workspace.ts";
import type { Clock } from "../llm/clock.ts";
import { FileSessionStore } from "../session/file_session_store.ts";
import type { SessionStore } from "../session/session_store.ts";

/** What the settings are built from (the validated options of `createRuntime`). */
export interface SettingsInput {
  /** The variables odek may read. */
  env: Record<string, string>;
  /** The directory holding `main.ts` and `tools/`. */
  installDir: string;
  /** @default resolved from `env` and `installDir` */
  paths?: OdekPaths;
  /** The highest-precedence configuration layer (the CLI's flags). */
  config?: ConfigLayer;
  /** @default from `env`: ODEK_API_KEY, else OPENAI_API_KEY */
  apiKey?: string;
  /** @default a FileSessionStore in `paths.sessionsDir` */
  store?: SessionStore;
  /** Record times of the default store. */
  clock?: Clock;
  /** Where temporary directories go (the egress proxy's socket). @default `env.TMPDIR`, else the system's */
  tmpDir?: string;
}

/** Which variable the API key was read from, and whether the environment or `secrets.env` set it. */
export interface ApiKeySource {
  /** `ODEK_API_KEY`, `GROQ_API_KEY`, …; `apiKey` when `createRuntime`'s option gave it. */
  variable: string;
  from: "environment" | "secrets.env" | "option";
}

/** Settings every session host shares. */
export interface Settings {
  paths: OdekPaths;
  /**
   * The user-level configuration (defaults, `secrets.env`, the user file, `ODEK_*`, flags). A
   * session host uses its own: these layers with its workspace's project layer
   * (`resolveHostConfig`).
   */
  config: OdekConfig;
  /** The user's layers as read, for each host's merge with its project layer. */
  layers: ConfigLayers;
  /** For the operator, on every host: a misnamed config file, an ignored `secrets.env`. */
  warnings: readonly string[];
  /** `ODEK_API_KEY`, the preset's variable, `OPENAI_API_KEY` (`resolveApiKey`); never logged. */
  apiKey: string | undefined;
  /** Where the key came from (never the key itself). */
  apiKeySource?: ApiKeySource;
  /**
   * The one redactor of every sink: the API key, a base-URL password and secret-named environment
   * values (with their encodings), then key formats and secret-named assignments.
   */
  redact: Redactor;
  store: SessionStore;
  /** Where temporary directories go; `undefined`: the system's. */
  tmpDir: string | undefined;
}

/**
 * Resolve paths, configuration, the API key and the session store.
 *
 * @throws {OdekError} `CONFIG_INVALID` from the configuration layers.
 */
export async function loadSettings(input: SettingsInput): Promise<Settings> {
  const { env } = input;
  const paths = input.paths ?? resolveOdekPaths(env, input.installDir);
  const layers = await loadConfigLayers({
    configFile: paths.configFile,
    env,
    flags: input.config,
    secretsFile: join(paths.odekHome, "secrets.env"),
  });
  const config = mergeUserLayers(layers).config;
  // ODEK_HOME must exist before any sandbox is rendered: a missing protected root cannot be
  // hidden, and the session journal is about to be created in it.
  await Deno.mkdir(paths.sessionsDir, { recursive: true, mode: 0o700 });
  // secrets.env fills only unset variables, and only here: its values never enter `env`, which
  // is what the broker's children are built from.
  const choice = resolveApiKey({ ...layers.filled, ...env }, resolveProvider(config).preset);
  const apiKey = input.apiKey || choice.key;
  const apiKeySource: ApiKeySource | undefined = input.apiKey
    ? { variable: "apiKey", from: "option" }
    : choice.variable
    ? {
      variable: choice.variable,
      from: Object.hasOwn(layers.filled, choice.variable) ? "secrets.env" : "environment",
    }
    : undefined;
  const urlPassword = passwordOf(config.baseUrl);
  const redact = createRedactor([
    ...(apiKey ? [apiKey] : []),
    ...(urlPassword ? [urlPassword] : []),
    ...secretEnvValues(env),
    // Every value of secrets.env is a secret, whatever its name.
    ...Object.values(layers.secrets.vars),
    ...mcpSecretValues(config.mcpServers),
  ]);
  const clock = input.clock;
  const store = input.store ??
    new FileSessionStore(paths.sessionsDir, {
      redact,
      ...(clock ? { now: () => new Date(clock.now()) } : {}),
    });
  const tmpDir = input.tmpDir ?? (env.TMPDIR?.startsWith("/") ? env.TMPDIR : undefined);
  return {
    paths,
    config,
    layers,
    warnings: layers.warnings,
    apiKey,
    ...(apiKeySource ? { apiKeySource } : {}),
    redact,
    store,
    tmpDir,
  };
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
 * created with mode 0700 when missing, after the overlap check; also the default when there is no
 * caller's directory, as for a server), or the caller's directory. A `requested` path that is the
 * dedicated workspace (a session that ran there) is validated as the dedicated one.
 *
 * @throws {OdekError} `WORKSPACE_INVALID` with the path and what to do.
 */
export async function resolveWorkspace(
  settings: Settings,
  requested: string | undefined,
  callerDir: string | undefined,
  options: { dedicated?: boolean } = {},
): Promise<ResolvedWorkspace> {
  const { paths } = settings;
  const dedicatedPath = dedicatedWorkspacePath(paths.odekHome);
  const explicit = requested !== undefined;
  if (explicit && !isAbsolute(requested) && callerDir === undefined) {
    throw new TypeError(
      `workspace must be an absolute path when the runtime has no cwd, got ${
        JSON.stringify(requested)
      }`,
    );
  }
  const path = explicit
    ? (isAbsolute(requested) ? requested : resolve(callerDir!, requested))
    : options.dedicated || callerDir === undefined
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
      : await validateWorkspace(path, { protectedRoots, home: paths.home });
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
  callerDir: string | undefined,
): Promise<{ parsed: AddDir[]; granted: AddDir[] }> {
  const parsed = [
    ...settings.config.addDirs.map((spec) => parseAddDir(spec, undefined)),
    ...flagDirs.map((spec) => parseAddDir(spec, callerDir)),
  ];
  const roots = [settings.paths.odekHome, settings.paths.installDir];
  return { parsed, granted: await validateAddDirs(parsed, roots) };
}

/**
 * Checks that every sandbox can replace the home directory (an existing directory, not `/`;
 * `sandbox: "none"` needs none): one stat, when a host opens, before its broker is built.
 *
 * @throws {OdekError} `SANDBOX_UNAVAILABLE` naming HOME and what to set
 */
export async function checkSandboxHome(settings: Settings): Promise<void> {
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
}

/** What {@linkcode buildBroker} needs besides the settings and the workspace. */
export interface BuildBrokerOptions {
  /** The machine's sandbox context (built once per runtime). */
  context: Promise<Omit<SandboxContext, "workspace">>;
  /** The directories granted besides the workspace, as parsed (validated before every spawn). */
  addDirs: readonly AddDir[];
  /** The host's trust level. */
  trustLevel: TrustLevel;
  /** Receives each warning for the operator (one sentence each, without a prefix). */
  warn: (message: string) => void;
  /** Hosts the egress proxy refuses even for approved network (`deny.domains`). @default [] */
  denyDomains?: readonly string[];
}

/**
 * The broker of a session host and its egress proxy; the workspace is validated again before
 * every spawn. Warnings (the install directory visible, no egress proxy, no bwrap or docker for
 * the shell tool) go to `options.warn`.
 *
 * @throws {OdekError} `SANDBOX_UNAVAILABLE` when the home directory cannot be replaced, and the
 *   context's errors
 */
export async function buildBroker(
  settings: Settings,
  resolved: ResolvedWorkspace,
  options: BuildBrokerOptions,
): Promise<SandboxBroker> {
  const { workspace, protectedRoots, dedicated } = resolved;
  await checkSandboxHome(settings);
  const base = await options.context;
  // Working on odek itself (an explicit workspace inside the install directory): keep it visible.
  const installVisible = !protectedRoots.includes(settings.paths.installDir);
  if (installVisible) {
    options.warn(
      `the workspace is inside odek's own install directory ${settings.paths.installDir}: the model can change the code odek runs next time. To work on odek, run a separate copy of it.`,
    );
  }
  const { config } = settings;
  const context = {
    ...(installVisible
      ? { ...base, protectedRoots: base.protectedRoots.filter((root) => root !== base.installDir) }
      : base),
    // The host's own limits (a project may lower them); the machine's context has the user's.
    maxProcesses: config.sandboxMaxProcesses,
    tmpfsMaxBytes: config.sandboxTmpfsMiB * 1024 * 1024,
  };
  if (settings.config.sandbox === "docker" && !context.dockerPath) {
    options.warn(
      'sandbox is "docker" but the docker client is not installed, so the shell tool is disabled. Install Docker, or set "sandbox" to "bwrap" (see odek doctor)',
    );
  }
  if (settings.config.sandbox === "bwrap" && context.bwrapPath === null) {
    options.warn(
      'bwrap is not installed, so the shell tool is disabled. Install it with: apt-get install bubblewrap (or set "sandbox" to "docker" or "none"; see odek doctor)',
    );
  }
  const addDirs = options.addDirs;
  return new SandboxBroker({
    context,
    // Validated before every call, never cached: type, owner and mode can change mid-run.
    resolveWorkspace: () =>
      validateWorkspace(workspace, {
        protectedRoots,
        home: settings.paths.home,
        requirePrivate: dedicated,
        ...(dedicated
          ? { role: { name: "the dedicated workspace", flag: "--workspace <dir>" } }
          : {}),
      }),
    resolveAddDirs: () =>
      validateAddDirs(addDirs, [settings.paths.odekHome, settings.paths.installDir]),
    trustLevel: options.trustLevel,
    shellTimeoutMs: settings.config.timeouts.shellSeconds * 1000,
    tmpDir: settings.tmpDir ?? "/tmp",
    hostPorts: settings.config.network.allowHostPorts,
    ...(await startEgress(settings, options.warn, options.denyDomains ?? [])),
  });
}

/**
 * The egress proxy of a session host (docs/network.md), logging to `ODEK_HOME/logs/egress.log`.
 * When it cannot start, calls granted network stay offline and a warning says why.
 */
async function startEgress(
  settings: Settings,
  warn: (message: string) => void,
  denyDomains: readonly string[],
): Promise<{ egress?: EgressProxy }> {
  const logs = join(settings.paths.odekHome, "logs");
  try {
    await Deno.mkdir(logs, { recursive: true, mode: 0o700 });
    return {
      egress: await EgressProxy.start({
        allowDomains: settings.config.network.allowDomains,
        denyDomains,
        // Programs of a host share a loopback: each call's egress needs its own credential.
        credentials: true,
        logFile: join(logs, "egress.log"),
        ...(settings.tmpDir ? { dir: settings.tmpDir } : {}),
      }),
    };
  } catch (error) {
    warn(
      `cannot start the egress proxy (${
        (error as Error).message
      }): calls granted network will have none. Check that the temp directory and ${logs} are writable.`,
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
