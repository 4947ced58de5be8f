/**
 * The composition root: builds the real configuration, model, broker and session store from the
 * process environment. Everything else receives its dependencies.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { redactKnownValues, type Redactor, secretEnvValues } from "../_util/redact_known_values.ts";
import { NonInteractiveApprover } from "../approval/non_interactive_approver.ts";
import { renderWriteDiff } from "../approval/render_write_diff.ts";
import { TerminalApprover } from "../approval/terminal_approver.ts";
import { SandboxBroker } from "../broker/sandbox_broker.ts";
import type { ClassifyContext } from "../danger/classifier.ts";
import { createClassifier } from "../danger/create_classifier.ts";
import type { RiskClass } from "../danger/verdict.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import { sandboxContextFromEnvironment } from "../broker/sandbox_context.ts";
import type { ConfigLayer, OdekConfig } from "../config/odek_config.ts";
import { type OdekPaths, resolveOdekPaths } from "../config/odek_paths.ts";
import { resolveConfig } from "../config/resolve_config.ts";
import { isInside, validateWorkspace } from "../config/validate_workspace.ts";
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
  /** From `ODEK_API_KEY` or `OPENAI_API_KEY`; never logged, never passed to a child. */
  apiKey: string | undefined;
  /** Replaces the API key and secret-looking environment values with `[REDACTED]`. */
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
  const apiKey = io.env.ODEK_API_KEY || io.env.OPENAI_API_KEY || undefined;
  const urlPassword = passwordOf(config.baseUrl);
  const redact = redactKnownValues([
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

/**
 * Resolve and validate the workspace: `--workspace` (relative to the caller's directory) or the
 * caller's directory.
 *
 * @throws {OdekError} `WORKSPACE_INVALID` with the path and what to do.
 */
export async function resolveWorkspace(
  settings: Settings,
  requested: string | undefined,
  callerDir: string,
): Promise<{ workspace: string; protectedRoots: string[] }> {
  const explicit = requested !== undefined;
  const path = explicit
    ? (isAbsolute(requested) ? requested : resolve(callerDir, requested))
    : callerDir;
  const protectedRoots = protectedRootsFor(settings.paths, resolve(path), explicit);
  let workspace: string;
  try {
    workspace = await validateWorkspace(path, { protectedRoots });
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
  return { workspace, protectedRoots };
}

/** The broker for a run; the workspace is validated again before every spawn. */
export async function buildBroker(
  settings: Settings,
  workspace: string,
  protectedRoots: string[],
  io: CliIO,
): Promise<{ broker: SandboxBroker; bwrapMissing: boolean }> {
  const home = settings.paths.home;
  if (
    settings.config.sandbox === "bwrap" &&
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
    resolveWorkspace: () => validateWorkspace(workspace, { protectedRoots }),
    trustLevel: settings.config.trustLevel,
    shellTimeoutMs: settings.config.timeouts.shellSeconds * 1000,
  });
  return {
    broker,
    bwrapMissing: settings.config.sandbox === "bwrap" && context.bwrapPath === null,
  };
}

/** The password in a base URL's userinfo (`https://user:pass@host/v1`), to be redacted. */
function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The approval gate of a run: the danger classifier at the run's trust level, and the approver:
 * `--yes` policy when given, else the terminal when odek has one, else deny every ask.
 */
export async function buildGate(
  settings: Settings,
  workspace: string,
  protectedRoots: string[],
  yes: "all" | RiskClass[] | undefined,
): Promise<ToolGate> {
  const classifier = await createClassifier();
  const context: ClassifyContext = {
    workspace,
    home: settings.paths.home,
    protectedRoots,
    trustLevel: settings.config.trustLevel,
    trustedClasses: settings.config.trustedClasses as RiskClass[],
  };
  const approver = yes !== undefined
    ? new NonInteractiveApprover({ yes })
    : (await hasTerminal())
    ? new TerminalApprover()
    : new NonInteractiveApprover();
  return {
    classify: (call) => classifier.classifyToolCall(call, context),
    approver,
    preview: (call) => previewCall(call, workspace),
  };
}

/** The shell command, or for a file write the diff against the file as it is now. */
async function previewCall(
  call: { name: string; args: Record<string, unknown> },
  workspace: string,
): Promise<string | undefined> {
  if (typeof call.args.command === "string") return call.args.command;
  if (call.name !== "write_file" || typeof call.args.path !== "string") return undefined;
  const path = resolve(workspace, call.args.path);
  let before: string | null = null;
  try {
    const info = await Deno.stat(path);
    if (info.isFile && info.size <= 1024 * 1024) before = await Deno.readTextFile(path);
  } catch {
    // A new file: the whole content is added.
  }
  return renderWriteDiff(before, String(call.args.content ?? ""), { path: call.args.path });
}

/** Whether this process has a controlling terminal to ask on. */
async function hasTerminal(): Promise<boolean> {
  try {
    (await Deno.open("/dev/tty", { read: true })).close();
    return true;
  } catch {
    return false;
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
