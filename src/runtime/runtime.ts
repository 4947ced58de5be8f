/**
 * The runtime: what every surface drives (design §1, §8.1). It holds the workspace-independent
 * parts — settings, the session store, the sandbox context of this machine, the classifier, the
 * model factory — and opens session hosts on them. Several hosts and runs live in one runtime.
 *
 * @module
 */
import { lazyModule } from "../_util/lazy_module.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { Redactor } from "../_util/redact_known_values.ts";
import type { SandboxContext } from "../broker/render_sandbox.ts";
import { sandboxContextFromEnvironment } from "../broker/sandbox_context.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { OdekConfig } from "../config/odek_config.ts";
import type { OdekPaths } from "../config/odek_paths.ts";
import type { Classifier } from "../danger/classifier.ts";
import type { Clock } from "../llm/clock.ts";
import { type ListedModel, listModels } from "../llm/list_models.ts";
import type { SessionStore } from "../session/session_store.ts";
import type { ModelFactory } from "./build_model.ts";
import type { ChildDeno } from "./child_deno_path.ts";
import {
  type ApiKeySource,
  resolveAddDirs,
  type ResolvedWorkspace,
  resolveWorkspace,
  type Settings,
} from "./compose.ts";
import { EventHub, type SubscribeOptions } from "./event_hub.ts";
import type { EventSubscription } from "./event_subscription.ts";
import {
  checkOpenSession,
  openSessionHost,
  type OpenSessionOptions,
  type SessionTarget,
} from "./open_session_host.ts";
import type { RewindOutcome, RewindRequest, Turn } from "./rewind_session.ts";
import type { SessionHost } from "./session_host.ts";
import { type HostConfig, resolveHostConfig } from "./host_config.ts";
import {
  findWorkspaceSessions,
  rewindStoredSession,
  storedSessionTurns,
  type WorkspaceSessions,
} from "./stored_sessions.ts";
import type { ToolProviderSource } from "./tool_provider_source.ts";

/** See {@linkcode Runtime.secretsSummary}. */
export interface SecretsSummary {
  /** `ODEK_HOME/secrets.env`. */
  file: string;
  status: "read" | "absent" | "ignored";
  /** The variables it sets. */
  names: string[];
  /** Those the environment did not set, so the file's value is used. */
  filled: string[];
  /** Where the API key came from, if there is one. */
  apiKey?: ApiKeySource;
}

/** What `createRuntime` hands the runtime (validated, resolved). */
export interface RuntimeInit {
  settings: Settings;
  env: Record<string, string>;
  cwd: string | undefined;
  childDeno: ChildDeno;
  modelFactory: ModelFactory;
  /** Tools every host offers besides the built-in ones. */
  tools: readonly ToolProviderSource[];
  fetch?: typeof fetch;
  clock?: Clock;
}

/**
 * A runtime. Made by `createRuntime()`; dispose it (`await using`) to close every host it
 * opened. It keeps no process-global state: several runtimes may live in one process.
 *
 * @example Two sessions in one runtime, and every event of both
 * ```ts
 * import { createRuntime } from "./create_runtime.ts";
 * import { ScriptedModel } from "../testing/scripted_model.ts";
 * const home = await Deno.makeTempDir();
 * const workspace = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin" },
 *     config: { sandbox: "none" },
 *     modelFactory: () => new ScriptedModel([{ text: "Done." }]),
 *   });
 *   const all = runtime.events();
 *   for (const task of ["first task", "second task"]) {
 *     await using host = await runtime.openSession({ task }, { workspace });
 *     await (await host.startRun()).result;
 *   }
 *   await runtime.close();
 *   const ended = [];
 *   for await (const event of all) if (event.type === "run_completed") ended.push(event.run_id);
 *   if (ended.length !== 2 || (await runtime.sessions.list()).length !== 2) throw new Error("two runs");
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 *   await Deno.remove(workspace, { recursive: true });
 * }
 * ```
 */
export class Runtime implements AsyncDisposable {
  /** ODEK_HOME, the config file, the sessions directory, the install directory, the home. */
  readonly paths: OdekPaths;
  /**
   * The user-level configuration (defaults, `secrets.env`, the config file, `ODEK_*` variables,
   * the `config` layer), for what no workspace decides. A host's own, with its workspace's project
   * layer, is `host.config` (or {@linkcode Runtime.configFor}).
   */
  readonly config: OdekConfig;
  /** The session store every host journals to. */
  readonly sessions: SessionStore;
  /**
   * The redactor of every sink (the API key, secret-named variables, key formats).
   * @internal for odek's own surfaces; not part of the library API
   */
  readonly redact: Redactor;
  /**
   * The deno tool children run with.
   * @internal for odek's own surfaces (`odek doctor`); not part of the library API
   */
  readonly childDeno: ChildDeno;
  /** The variables the runtime reads (as given). */
  readonly env: Readonly<Record<string, string>>;
  /** The directory relative paths are resolved against, if any. */
  readonly cwd: string | undefined;
  readonly #init: RuntimeInit;
  readonly #hub = new EventHub();
  readonly #hosts = new Set<SessionHost>();
  #context: Promise<Omit<SandboxContext, "workspace">> | undefined;
  #classifier: Promise<Classifier> | undefined;
  #closing: Promise<void> | undefined;

  /**
   * Made by {@linkcode createRuntime}, never directly.
   * @internal
   */
  constructor(init: RuntimeInit) {
    this.#init = init;
    this.paths = init.settings.paths;
    this.config = init.settings.config;
    this.sessions = init.settings.store;
    this.redact = init.settings.redact;
    this.childDeno = init.childDeno;
    this.env = init.env;
    this.cwd = init.cwd;
  }

  /** Hosts open now. */
  get hosts(): readonly SessionHost[] {
    return [...this.#hosts];
  }

  /**
   * This machine's sandbox context (bwrap and docker probes, pids cgroup, seccomp filters, root
   * secrets), built once on first use.
   *
   * @throws {OdekError} `SANDBOX_UNAVAILABLE` when a compiled odek finds no deno for its
   *   children, `CONFIG_INVALID` for a bad `HOME`
   * @internal for odek's own surfaces (`odek doctor`); not part of the library API
   */
  sandboxContext(): Promise<Omit<SandboxContext, "workspace">> {
    this.#context ??= handled((async () => {
      const deno = this.childDeno.path;
      if (deno === null) {
        throw new OdekError(
          "SANDBOX_UNAVAILABLE",
          "This compiled odek needs an external deno 2.9.6 for its tool children: install it (npm install -g deno@2.9.6) or set ODEK_DENO to its path.",
        );
      }
      const { paths, config } = this.#init.settings;
      return await sandboxContextFromEnvironment({
        odekHome: paths.odekHome,
        installDir: paths.installDir,
        mode: config.sandbox,
        denoPath: deno,
        maxProcesses: config.sandboxMaxProcesses,
        tmpfsMaxBytes: config.sandboxTmpfsMiB * 1024 * 1024,
        env: { ...this.env, HOME: paths.home },
      });
    })());
    return this.#context;
  }

  /**
   * Resolve and validate a workspace as `openSession` would for a new session: `workspace`
   * (relative to `cwd`), the dedicated one, or `cwd` (without one: the dedicated one). The
   * dedicated workspace is created (0700) when missing.
   *
   * @throws {OdekError} `WORKSPACE_INVALID` with the path and what to do
   * @internal for odek's own surfaces (`odek doctor`, `odek classify`); not part of the library API
   */
  resolveWorkspace(
    options: { workspace?: string; dedicated?: boolean } = {},
  ): Promise<ResolvedWorkspace> {
    return resolveWorkspace(this.#init.settings, options.workspace, this.cwd, {
      dedicated: options.dedicated ?? this.config.dedicatedWorkspace,
    });
  }

  /**
   * Parse and validate the added directories: config `addDirs` and `specs` (`PATH[:ro]`,
   * relative to `cwd`).
   *
   * @returns the directories as written and their validated real paths
   * @throws {OdekError} `USAGE`, `CONFIG_INVALID` or `WORKSPACE_INVALID` naming the directory
   * @internal for odek's own surfaces (`odek doctor`, `odek classify`); not part of the library API
   */
  resolveAddDirs(specs: readonly string[] = []): Promise<{ parsed: AddDir[]; granted: AddDir[] }> {
    return resolveAddDirs(this.#init.settings, specs, this.cwd);
  }

  /**
   * The configuration a session host for `workspace` would run with: the user's layers and the
   * workspace's `odek.jsonc`, tightened, with each value's origin, the deny rules, the layer files
   * looked at and the warnings (`odek config show`, `odek doctor`, `odek classify`).
   *
   * @param workspace a validated workspace (real path, e.g. from {@linkcode Runtime.resolveWorkspace})
   * @throws {OdekError} `CONFIG_INVALID` for a project file that cannot be read or is invalid
   * @internal for odek's own surfaces (`odek config show`, `odek doctor`); not part of the library API
   */
  configFor(workspace: string): Promise<HostConfig> {
    return resolveHostConfig(this.#init.settings, workspace);
  }

  /**
   * For the operator about the user's layers (a misnamed file, an ignored `secrets.env`); every
   * host's `warnings` include them.
   */
  get configWarnings(): readonly string[] {
    return this.#init.settings.warnings;
  }

  /**
   * What the configuration layers below the user file hold, without a single secret value:
   * `secrets.env` (its path, whether it was read, the names it sets and which of them it filled)
   * and where the API key came from.
   * @internal for odek's own surfaces (`odek config show`); not part of the library API
   */
  get secretsSummary(): SecretsSummary {
    const { layers, apiKeySource } = this.#init.settings;
    return {
      file: layers.secrets.file,
      status: layers.secrets.status,
      names: Object.keys(layers.secrets.vars),
      filled: Object.keys(layers.filled),
      ...(apiKeySource ? { apiKey: apiKeySource } : {}),
    };
  }

  /**
   * The danger classifier (its Bash parser loads once, on first use).
   * @internal for odek's own surfaces (`odek classify`); not part of the library API
   */
  classifier(): Promise<Classifier> {
    // Lazy (src/_util/lazy_module.ts): a static or literal import would load the classifier (its tables and the Bash
    // parser, ~40 modules) with every command; this way it loads while a session host opens.
    this.#classifier ??= handled(
      (lazyModule("danger/create_classifier.ts") as Promise<
        typeof import("../danger/create_classifier.ts")
      >).then(({ createClassifier }) => createClassifier()),
    );
    return this.#classifier;
  }

  /**
   * Open a session host: for a new session (`{ task }`, optionally with its name as `sessionId`)
   * or an existing one (`{ sessionId }`). Starting new and continuing are one code path; nothing
   * is written to an existing session until its first run starts.
   *
   * @throws {TypeError} / {@linkcode RangeError} for bad arguments, naming the option;
   *   {@linkcode OdekError} for what the operator must fix (workspace, key, sandbox, session)
   */
  async openSession(
    target: SessionTarget,
    options: OpenSessionOptions = {},
  ): Promise<SessionHost> {
    checkOpenSession(target, options, this.cwd);
    if (this.#closing) throw new OdekError("SESSION_BUSY", "The runtime is closed.");
    const host = await openSessionHost(
      {
        settings: this.#init.settings,
        cwd: this.cwd,
        sandboxContext: () => this.sandboxContext(),
        classifier: () => this.classifier(),
        modelFactory: this.#init.modelFactory,
        ...(this.#init.fetch ? { fetch: this.#init.fetch } : {}),
        ...(this.#init.clock ? { clock: this.#init.clock } : {}),
        tools: this.#init.tools,
        forward: (event) => this.#hub.publish(event),
        onClosed: (closed) => this.#hosts.delete(closed),
      },
      target,
      options,
    );
    if (this.#closing) {
      await host.close();
      throw new OdekError("SESSION_BUSY", "The runtime was closed while the session opened.");
    }
    this.#hosts.add(host);
    return host;
  }

  /**
   * The models the configured provider lists (`GET <baseUrl>/models`), with the runtime's key
   * and fetch: `odek models` and the interactive `/model` use this.
   *
   * @param options another base URL than the configuration's; an abort signal
   * @returns the models, sorted by id
   * @throws {OdekError} `MODEL_UNREACHABLE`, `MODEL_ERROR` (a 404 says the server lists no
   *   models there), `MODEL_PROTOCOL` — see `listModels`
   */
  listModels(options: { baseUrl?: string; signal?: AbortSignal } = {}): Promise<ListedModel[]> {
    const { settings } = this.#init;
    return listModels(options.baseUrl ?? settings.config.baseUrl, {
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      ...(this.#init.fetch ? { fetch: this.#init.fetch } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /**
   * The sessions of a workspace (default: the runtime's `cwd`), newest first, and the others:
   * `odek continue` resumes the newest session of the current workspace, never another one's.
   *
   * @throws {TypeError} without a workspace and without a `cwd`
   */
  sessionsOf(workspace?: string): Promise<WorkspaceSessions> {
    const path = workspace ?? this.cwd;
    if (path === undefined) {
      throw new TypeError("sessionsOf needs a workspace (the runtime has no cwd)");
    }
    return findWorkspaceSessions(this.#init.settings, path);
  }

  /**
   * A session's turns (its operator messages), each with the checkpoint of the files before it.
   * Reads the journal without a lock.
   *
   * @throws {OdekError} `SESSION_NOT_FOUND`, `SESSION_CORRUPT`
   */
  turns(sessionId: string): Promise<Turn[]> {
    return storedSessionTurns(this.#init.settings, sessionId);
  }

  /**
   * Take a session no host of this runtime has open back to before one of its turns (default:
   * the last, an undo): files, conversation, or both. Needs no API key and starts no sandbox; a
   * host that has the session open rewinds with `host.rewind()` instead.
   *
   * @throws {OdekError} `SESSION_LOCKED` (a run has it), `WORKSPACE_INVALID`, `USAGE`,
   *   `CHECKPOINT_UNAVAILABLE`, `RESTORE_CONFLICT` (nothing was changed)
   */
  rewind(
    sessionId: string,
    request: RewindRequest = {},
    options: { workspace?: string } = {},
  ): Promise<RewindOutcome & { workspace: string }> {
    return rewindStoredSession(this.#init.settings, sessionId, request, {
      cwd: this.cwd,
      ...options,
    });
  }

  /**
   * Every event of every run of this runtime from now on, each subscriber with its own bounded
   * buffer (`events_dropped` markers where it fell behind). Ends when the runtime closes.
   *
   * @throws {RangeError} for a bad `bufferSize`
   */
  events(options: SubscribeOptions = {}): EventSubscription {
    return this.#hub.subscribe(options);
  }

  /** Close every open host (each cancels its run and releases everything). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const results = await Promise.allSettled([...this.#hosts].map((host) => host.close()));
      this.#hub.end();
      const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failure) throw failure.reason;
    })();
    return this.#closing;
  }

  /** {@linkcode Runtime.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A memoised promise: its rejection is handled here and seen by whoever awaits it. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}
