/**
 * Opening a session host: a new session or an existing one, through one code path. Every check
 * that can fail runs before anything is written to the session, and nothing built is left
 * running when a later step fails.
 *
 * @module
 */
export { checkOpenSession } from "./check_open_session.ts";
import { join, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { Approver } from "../approval/approver.ts";
import { type Clarifier, NoOperatorClarifier } from "../approval/clarifier.ts";
import { NonInteractiveApprover } from "../approval/non_interactive_approver.ts";
import type { SandboxContext } from "../broker/render_sandbox.ts";
import { type TrustLevel } from "../config/trust_level.ts";
import type { Classifier } from "../danger/classifier.ts";
import type { Clock } from "../llm/clock.ts";
import { initialMessages, instructionsIn } from "../loop/initial_messages.ts";
import type { OpenSession } from "../session/session_store.ts";
import { tornTailWarning } from "./_host_warnings.ts";
import { buildModel, type ModelFactory } from "./build_model.ts";
import { checkSandboxHome, resolveAddDirs, resolveWorkspace, type Settings } from "./compose.ts";
import type { RuntimeEvent } from "./event_subscription.ts";
import { HostCheckpoints } from "./host_checkpoints.ts";
import { readInstructions } from "./read_instructions.ts";
import { CHECKPOINTS_OFF } from "./stored_sessions.ts";
import { type ClosableCheckpointStore, failWithStartup, once } from "./_host_startup.ts";
import { startHostParts, type StartingParts } from "./_start_host_parts.ts";
import { runtimeTools } from "./runtime_tools.ts";
import { SessionHost } from "./session_host.ts";
import { resolveHostConfig } from "./host_config.ts";
import type { AskProjectMcpServer } from "../config/approve_project_mcp_servers.ts";
import { projectServers } from "./host_project_mcp_servers.ts";
import { readContextFiles } from "./read_context_files.ts";
import {
  resolveToolProviders,
  type ToolProviderHost,
  type ToolProviderSource,
} from "./tool_provider_source.ts";
import {
  SUBAGENT_HOST,
  type SubagentHostParts,
  type WithSubagentHost,
} from "./subagents/_subagent_host.ts";

/**
 * Which session a host is for: a new one (its task; optionally its name) or an existing one.
 *
 * @example A new session, and an existing one
 * ```ts
 * import type { SessionTarget } from "./open_session_host.ts";
 * const fresh: SessionTarget = { task: "fix the failing test" };
 * const again: SessionTarget = { sessionId: "20250101-120000-abcd" };
 * if (!("task" in fresh) || again.task !== undefined) throw new Error("targets");
 * ```
 */
export type SessionTarget =
  | { task: string; sessionId?: string }
  | { sessionId: string; task?: undefined };

/**
 * Options for `runtime.openSession()`.
 *
 * @example A read-only session in a given workspace
 * ```ts
 * import type { OpenSessionOptions } from "./open_session_host.ts";
 * const options: OpenSessionOptions = { workspace: "/srv/project", trust: "untrusted", addDirs: ["/srv/docs:ro"] };
 * if (options.trust !== "untrusted") throw new Error("trust");
 * ```
 */
export interface OpenSessionOptions {
  /**
   * The workspace: absolute, or relative to the runtime's `cwd`. @default a new session: the
   * runtime's `cwd` (without one, or with `dedicatedWorkspace`, the dedicated workspace beside
   * ODEK_HOME); an existing session: the workspace it recorded
   */
  workspace?: string;
  /** Work in the dedicated workspace beside ODEK_HOME. @default config `dedicatedWorkspace` for a new session */
  dedicatedWorkspace?: boolean;
  /** Extra directories, each `PATH` or `PATH:ro` (relative to `cwd`), besides config `addDirs`. */
  addDirs?: readonly string[];
  /** The trust level of the host's runs. @default config `trustLevel` */
  trust?: TrustLevel;
  /** Answers the calls that ask (and keeps the approval memory). @default deny every ask */
  approver?: Approver;
  /**
   * Whether a call that was waiting for approval when an earlier run stopped (a crash, Ctrl-C at
   * the prompt, a restarted server) is put to `approver` again when the next run resumes the
   * batch; otherwise it is answered `not started: the run stopped before it was approved`
   * (design §8.3). Surfaces with someone to ask (a terminal, serve, a durable worker) say yes.
   * @default true when `approver` is given, else false
   */
  reaskApprovals?: boolean;
  /** Answers `clarify`. @default nobody: every question is denied with a reason */
  clarifier?: Clarifier;
  /** The model id. @default a new session: config `model`; an existing one: the recorded model */
  model?: string;
  /** The base URL. @default a new session: config `baseUrl`; an existing one: the recorded one */
  baseUrl?: string;
  /** A new session's identity paragraph (`--system`); the safety rules are always kept. */
  system?: string;
  /** Record the model's answers to this cassette (absolute or relative to `cwd`). */
  record?: string;
  /** Answer from this cassette instead of the model (absolute or relative to `cwd`). */
  replay?: string;
  /**
   * Tools this host offers besides the built-in ones and the runtime's: providers, or factories
   * called with this host. @default none
   */
  tools?: readonly ToolProviderSource[];
  /**
   * Whether a project MCP server (`odek.jsonc`) without a stored approval of its entry may start:
   * `once`, `always` (stored under ODEK_HOME) or `deny`; the approved reach tool providers as
   * `host.projectMcpServers`. @default nobody to ask: such a server stays inert, with a warning
   */
  askProjectMcpServer?: AskProjectMcpServer;
}

/** What the runtime lends a host while it opens (its workspace-independent parts). */
export interface RuntimeParts {
  settings: Settings;
  cwd: string | undefined;
  sandboxContext(): Promise<Omit<SandboxContext, "workspace">>;
  classifier(): Promise<Classifier>;
  modelFactory: ModelFactory;
  fetch?: typeof fetch;
  clock?: Clock;
  /** The runtime's tool providers (every host's), before the host's own. */
  tools: readonly ToolProviderSource[];
  forward: (event: RuntimeEvent) => void;
  onClosed: (host: SessionHost) => void;
}

/**
 * Open a host: resolve and validate the workspace and added directories, build the model client,
 * the gate and the broker (with its egress proxy), then create the session (with its first
 * messages) or open the existing one.
 *
 * @throws {OdekError} the composition's errors (`WORKSPACE_INVALID`, `MISSING_API_KEY`, `USAGE`,
 *   `SANDBOX_UNAVAILABLE`, `SESSION_NOT_FOUND`, `SESSION_LOCKED`, …); whatever was built is closed
 */
export async function openSessionHost(
  parts: RuntimeParts,
  target: SessionTarget,
  options: OpenSessionOptions,
): Promise<SessionHost> {
  const { settings, cwd } = parts;
  performance.mark("odek:open");
  const existing = target.task === undefined ? await settings.store.open(target.sessionId) : null;
  let session: OpenSession | undefined = existing ?? undefined;
  let starting: StartingParts | undefined;
  let created: string | undefined;
  let disposeProviders: (() => Promise<void>) | undefined;
  let checkpointStore: ClosableCheckpointStore | undefined;
  const closing = new AbortController();
  try {
    const meta = existing?.meta;
    // The endpoint is the user's alone (a project file may not set it): known before the workspace.
    const baseUrl = options.baseUrl ?? meta?.baseUrl ?? settings.config.baseUrl;
    if (meta && baseUrl.startsWith("replay:") && !options.replay) {
      throw new OdekError(
        "USAGE",
        `Session ${meta.id} was answered from the cassette ${
          baseUrl.slice(7)
        }: continue it with --replay <cassette> or --base-url <url>.`,
      );
    }
    const dedicated = options.dedicatedWorkspace ??
      (meta ? false : settings.config.dedicatedWorkspace);
    const resolved = await resolveWorkspace(
      settings,
      options.workspace ?? (meta && !dedicated ? meta.workspace : undefined),
      cwd,
      { dedicated },
    );
    const { workspace } = resolved;
    // This workspace's project layer, tightened: what this host's parts below run with.
    const hostConfig = await resolveHostConfig(settings, workspace);
    performance.mark("odek:hostconfig");
    const host: Settings = { ...settings, config: hostConfig.config };
    const warnings: string[] = [...hostConfig.warnings];
    const trust = options.trust ?? host.config.trustLevel;
    const projectMcpServers = await projectServers(settings, hostConfig, workspace, trust, {
      ask: options.askProjectMcpServer,
      signal: closing.signal,
      warnings,
    });
    const model = options.model ?? meta?.model ?? host.config.model;
    const addDirs = await resolveAddDirs(settings, options.addDirs ?? [], cwd);
    const at = (path?: string) => (path === undefined ? undefined : resolve(cwd ?? "/", path));
    const replay = at(options.replay);
    performance.mark("odek:pre-model");
    const modelClient = await buildModel(host, {
      model,
      baseUrl,
      ...(options.record ? { record: at(options.record) } : {}),
      ...(replay ? { replay } : {}),
      factory: parts.modelFactory,
      ...(parts.fetch ? { fetch: parts.fetch } : {}),
      ...(parts.clock ? { clock: parts.clock } : {}),
    });
    // A client with something to load (Model.prepare) loads it while the broker and the session
    // are set up.
    modelClient.prepare?.();
    performance.mark("odek:model");
    const { denyRules } = hostConfig;
    // The first request needs none of these: started now, awaited by their first user (every
    // one before a run's first tool call is classified; docs/runtime.md).
    await checkSandboxHome(host);
    const approver = options.approver ?? new NonInteractiveApprover();
    starting = startHostParts({
      host,
      resolved,
      context: () => parts.sandboxContext(),
      classifier: () => parts.classifier(),
      addDirs,
      trust,
      denyRules,
      approver,
    });
    const { broker, gate } = starting;
    performance.mark("odek:stand-ins");
    if (!session) {
      const task = target.task!;
      session = await settings.store.create({
        ...(target.sessionId ? { id: target.sessionId } : {}),
        workspace,
        model,
        // A replayed run never talks to the configured endpoint: record where its answers came from.
        baseUrl: replay ? `replay:${replay}` : baseUrl,
        title: task,
      });
      created = session.meta.id;
      // Context files are read through the gate's read classification: it waits for the parts.
      if (hostConfig.contextFiles.length > 0) await starting.classifiable();
      const contextRead = await readContextFiles(hostConfig.contextFiles, {
        workspace,
        home: settings.paths.home,
        classifyRead: (path) => gate.classify({ name: "read_file", args: { path } }),
      });
      warnings.push(...contextRead.warnings);
      const instructions = await readInstructions({
        workspace,
        odekHome: settings.paths.odekHome,
        home: settings.paths.home,
        protectedRoots: resolved.protectedRoots,
      });
      const messages = initialMessages({
        task,
        ...(options.system !== undefined ? { system: options.system } : {}),
        ...(instructions.operator !== undefined
          ? { operatorInstructions: instructions.operator }
          : {}),
        projectInstructions: instructions.project,
        contextFiles: contextRead.files,
        workspace,
        sandbox: host.config.sandbox,
        addDirs: addDirs.granted,
      });
      for (const message of messages) await session.append(message);
    }
    performance.mark("odek:session");
    // What delegate_tasks needs beyond the public host (the key stays in `modelClient`).
    const { contextNow } = starting;
    const subagents: SubagentHostParts = {
      model: modelClient,
      modelName: model,
      baseUrl: session.meta.baseUrl,
      store: settings.store,
      gateFor: starting.gateFor,
      // Read only by a delegate_tasks call, which the gate let through once the parts were up.
      get denoPath() {
        return childOf(contextNow()).denoPath;
      },
      get denoDir() {
        return childOf(contextNow()).denoDir;
      },
      installDir: settings.paths.installDir,
      logDir: join(settings.paths.odekHome, "logs", "subagents"),
      maxConcurrency: host.config.subagents.maxConcurrency,
    };
    const clarifier = options.clarifier ??
      new NoOperatorClarifier("no operator is attached to this run");
    const resolvedTools = await resolveToolProviders([...parts.tools, ...(options.tools ?? [])], {
      sessionId: session.meta.id,
      workspace,
      addDirs: addDirs.granted,
      trust,
      broker,
      signal: closing.signal,
      [SUBAGENT_HOST]: subagents,
      projectMcpServers,
      clarifier,
    } as WithSubagentHost<ToolProviderHost>);
    disposeProviders = resolvedTools.dispose;
    const tools = runtimeTools(resolvedTools.providers);
    const current = session.meta;
    if (session.tornTail) warnings.push(tornTailWarning(current.id, session.tornTail));
    const store = checkpointStore = starting.openStore(settings, current.id);
    let started: Promise<void> | undefined;
    const ready = once(() =>
      started = starting!.ready().then((late) => {
        performance.mark("odek:parts-ready");
        warnings.push(...late);
      })
    );
    return new SessionHost({
      settings: host,
      hostConfig,
      session,
      // A part that fails to start fails the run's request in flight (docs/runtime.md).
      model: failWithStartup(modelClient, ready),
      broker,
      gate,
      clarifier,
      tools,
      closeTools: async () => {
        closing.abort();
        await resolvedTools.dispose();
      },
      workspace,
      addDirs: addDirs.granted,
      trust,
      modelName: model,
      patch: {
        ...(model !== current.model ? { model } : {}),
        ...(baseUrl !== current.baseUrl && !replay ? { baseUrl } : {}),
        ...(workspace !== current.workspace ? { workspace } : {}),
      },
      resumed: existing !== null,
      ...(target.task !== undefined ? { task: target.task } : {}),
      askAgain: options.reaskApprovals ?? options.approver !== undefined,
      checkpoints: new HostCheckpoints(store, session, CHECKPOINTS_OFF),
      ...(store ? { closeCheckpoints: () => store.close() } : {}),
      ready,
      started: () => started,
      instructions: instructionsIn(session.messages),
      warnings,
      forward: parts.forward,
      onClosed: parts.onClosed,
    });
  } catch (error) {
    // Nothing may outlive a failed open: the broker's children and proxy, the session's lock,
    // and a session this open created but could not start (nothing ran in it).
    try {
      closing.abort();
      await checkpointStore?.close().catch(() => {});
      await disposeProviders?.().catch(() => {});
      await starting?.broker.close();
    } finally {
      await session?.close();
      if (created) await settings.store.delete(created).catch(() => {});
    }
    throw error;
  }
}

function childOf<T>(child: T | undefined): T {
  if (child === undefined) {
    throw new Error("delegate_tasks ran before the host's sandbox context was up");
  }
  return child;
}
