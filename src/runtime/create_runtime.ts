/**
 * `createRuntime()`: the one entry every surface (the CLI, a server, MCP, a script) starts from.
 *
 * @module
 */
import type { ConfigLayer } from "../config/odek_config.ts";
import type { Clock } from "../llm/clock.ts";
import type { SessionStore } from "../session/session_store.ts";
import { type ModelFactory, openAIModelFor } from "./build_model.ts";
import { checkFunction, checkMethods, checkObject, checkString } from "./check_option.ts";
import { childDenoPath } from "./child_deno_path.ts";
import { loadSettings } from "./compose.ts";
import { checkoutRoot } from "../_util/checkout_root.ts";
import { Runtime } from "./runtime.ts";
import { checkToolProviderSources, type ToolProviderSource } from "./tool_provider_source.ts";

/**
 * Options for {@linkcode createRuntime}. The runtime reads nothing else from the process.
 *
 * @example A runtime for a script in its project directory
 * ```ts
 * import type { RuntimeOptions } from "./create_runtime.ts";
 * const options: RuntimeOptions = {
 *   env: { HOME: "/home/ada", PATH: "/usr/bin:/bin" },
 *   cwd: "/home/ada/project",
 *   config: { trustLevel: "standard", budgets: { maxIterations: 20 } },
 * };
 * if (options.config?.budgets?.maxIterations !== 20) throw new Error("config");
 * ```
 */
export interface RuntimeOptions {
  /**
   * The environment variables odek may read: `HOME`, `ODEK_HOME`, `ODEK_*` settings, `PATH`,
   * `DENO_DIR`, `ODEK_DENO`, the API key variables, and every secret-named one (whose values are
   * redacted from every sink). The CLI passes `Deno.env.toObject()`.
   */
  env: Record<string, string>;
  /**
   * The directory holding `main.ts` and `tools/` (a protected root; the tool children run from
   * it). @default the checkout this module was loaded from
   */
  installDir?: string;
  /**
   * The directory relative paths (workspace, added directories, cassettes) resolve against, and
   * a new session's default workspace. @default none: paths must be absolute and the default
   * workspace is the dedicated one beside ODEK_HOME
   */
  cwd?: string;
  /** `ODEK_HOME`. @default `env.ODEK_HOME`, else `~/.odek` */
  odekHome?: string;
  /** The home directory. @default `env.HOME` */
  home?: string;
  /** The API key. @default `env.ODEK_API_KEY`, else `env.OPENAI_API_KEY` */
  apiKey?: string;
  /** The highest-precedence configuration layer (e.g. the CLI's flags), validated like the file. */
  config?: ConfigLayer;
  /** Makes each host's model client. @default the OpenAI-compatible client */
  modelFactory?: ModelFactory;
  /** The session store. @default files under `ODEK_HOME/sessions` */
  store?: SessionStore;
  /** Time for the model client's retries and the default store's record times. @default the system clock */
  clock?: Clock;
  /** The `fetch` of the default model client. @default the global `fetch` */
  fetch?: typeof fetch;
  /** Where temporary directories go (the egress proxy's socket). @default `env.TMPDIR`, else the system's */
  tmpDir?: string;
  /** The running deno or odek binary (finds the children's deno). @default `Deno.execPath()` */
  execPath?: string;
  /**
   * Tools every session host offers besides the built-in ones: providers, or factories called
   * once per host (see `docs/runtime.md`). A host's own `tools` come after these.
   * @default none
   */
  tools?: readonly ToolProviderSource[];
}

/**
 * Build a runtime: resolve the paths and the configuration (the config file, `ODEK_*` variables,
 * `options.config`), create `ODEK_HOME`'s sessions directory, and prepare the redactor and the
 * session store. The sandbox probes and the classifier are built on first use (by the first
 * `openSession`), so a runtime that only lists sessions starts fast.
 *
 * @param options what the runtime may read, and its injectable parts
 * @returns the runtime; dispose it to close its hosts
 * @throws {TypeError} / {@linkcode RangeError} for a bad option, naming it;
 *   {@linkcode OdekError} `CONFIG_INVALID` for a bad configuration or `HOME`/`ODEK_HOME`;
 *   `SANDBOX_UNAVAILABLE` when odek itself was not loaded from a local checkout (a `file:` URL):
 *   its tool children run from the checkout's files
 *
 * @example List sessions without touching the sandbox
 * ```ts
 * import { createRuntime } from "./create_runtime.ts";
 * const home = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({ env: { HOME: home }, installDir: "/opt/odek" });
 *   if ((await runtime.sessions.list()).length !== 0) throw new Error("a new home has no sessions");
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 * }
 * ```
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  checkObject("options", options);
  checkObject("env", options.env);
  for (const [name, value] of Object.entries(options.env)) {
    if (typeof value !== "string") {
      throw new TypeError(`env.${name} must be a string, got ${typeof value}`);
    }
  }
  checkString("installDir", options.installDir, { absolute: true });
  // This release runs only from a local checkout: fail before anything is read or written.
  const checkout = checkoutRoot();
  const installDir = options.installDir ?? checkout;
  for (const key of ["cwd", "odekHome", "home", "tmpDir"] as const) {
    checkString(key, options[key], { absolute: true });
  }
  checkString("apiKey", options.apiKey);
  checkObject("config", options.config, true);
  checkFunction("modelFactory", options.modelFactory);
  checkFunction("fetch", options.fetch);
  checkMethods("store", options.store, ["create", "open", "read", "list", "latest", "delete"]);
  checkMethods("clock", options.clock, ["now", "sleep", "random"]);
  checkString("execPath", options.execPath, { absolute: true });
  checkToolProviderSources("tools", options.tools);
  const env: Record<string, string> = {
    ...options.env,
    ...(options.home ? { HOME: options.home } : {}),
    ...(options.odekHome ? { ODEK_HOME: options.odekHome } : {}),
  };
  const settings = await loadSettings({
    env,
    installDir,
    ...(options.config ? { config: options.config } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.tmpDir ? { tmpDir: options.tmpDir } : {}),
  });
  return new Runtime({
    settings,
    env,
    cwd: options.cwd,
    childDeno: childDenoPath(env, options.execPath ?? Deno.execPath()),
    modelFactory: options.modelFactory ?? openAIModelFor,
    tools: options.tools ?? [],
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
