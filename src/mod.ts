/**
 * odek as a library: the runtime (`createRuntime` → session hosts → runs, docs/runtime.md), and
 * below it the run loop, the model client, the sandboxed broker and the session store, to embed in
 * your own scripts. Fakes for tests are under `@odek/odek/testing`.
 *
 * @example Run the loop with a scripted model and an in-process broker
 * ```ts
 * import { runAgent, initialMessages, MemorySessionStore, ToolSet } from "./mod.ts";
 * import { FakeBroker, ScriptedModel } from "./testing/mod.ts";
 *
 * const model = new ScriptedModel([
 *   { toolCalls: [{ name: "glob", arguments: { pattern: "*.md" } }] },
 *   { text: "There is one Markdown file." },
 * ]);
 * const broker = new FakeBroker(() => ({ ok: true, output: "README.md" }));
 * const store = new MemorySessionStore();
 * const session = await store.create({ workspace: "/w", model: "m", baseUrl: "http://127.0.0.1/v1", title: "count docs" });
 * const messages = initialMessages({ task: "How many Markdown files are there?", workspace: "/w", sandbox: "bwrap" });
 * for (const message of messages) await session.append(message);
 * const outcome = await runAgent({
 *   model, broker, journal: session, messages,
 *   tools: new ToolSet(), runId: "0".repeat(32),
 * });
 * await session.close();
 * if (outcome.type !== "completed" || outcome.text !== "There is one Markdown file.") throw new Error(outcome.type);
 * ```
 *
 * @example Drive a session host through the runtime (what every surface does)
 * ```ts
 * import { createRuntime } from "./mod.ts";
 * import { ScriptedModel } from "./testing/mod.ts";
 *
 * const home = await Deno.makeTempDir();
 * const workspace = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin" },
 *     installDir: new URL("..", import.meta.url).pathname.replace(/\/$/, ""),
 *     config: { sandbox: "none" },
 *     modelFactory: () => new ScriptedModel([{ text: "Hello." }, { text: "Hello again." }]),
 *   });
 *   await using host = await runtime.openSession({ task: "Say hello." }, { workspace });
 *   const first = await host.startRun();
 *   const types = [];
 *   for await (const event of first.events) types.push(`${event.seq}:${event.type}`);
 *   const outcome = await first.result;
 *   if (outcome.type !== "completed" || types[0] !== "1:run_started") throw new Error(types.join());
 *   const second = await (await host.startRun({ message: "Once more." })).result;
 *   if (second.type !== "completed" || second.text !== "Hello again.") throw new Error(second.type);
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 *   await Deno.remove(workspace, { recursive: true });
 * }
 * ```
 *
 * @module
 */
export { type ChatMessage, ChatMessageSchema, type ToolCall } from "./_util/chat_message.ts";
export { OdekError, type OdekErrorCode } from "./_util/odek_error.ts";
export { redactKnownValues, type Redactor, secretEnvValues } from "./_util/redact_known_values.ts";
export { createRedactor } from "./_util/create_redactor.ts";
export { isSecretName } from "./_util/is_secret_name.ts";
export { redactSecretPatterns } from "./_util/redact_secret_patterns.ts";
export { StreamRedactor } from "./_util/stream_redactor.ts";
export {
  type NeutralizedKind,
  type NeutralizedText,
  neutralizeText,
} from "./_util/neutralize_text.ts";
export { type CapLimits, capOutput, DEFAULT_CAP_LIMITS } from "./_util/cap_output.ts";
export { wrapUntrusted } from "./_util/wrap_untrusted.ts";
export { DEFAULT_CONFIG, type OdekConfig } from "./config/odek_config.ts";
export { type OdekPaths, resolveOdekPaths } from "./config/odek_paths.ts";
export { resolveConfig, type ResolveConfigOptions } from "./config/resolve_config.ts";
export { type TrustLevel, TrustLevelSchema } from "./config/trust_level.ts";
export { validateWorkspace } from "./config/validate_workspace.ts";
export type { RiskClass, Verdict, VerdictPart } from "./danger/verdict.ts";
export type { Classifier, ClassifyContext } from "./danger/classifier.ts";
export { createClassifier } from "./danger/create_classifier.ts";
export { decide } from "./danger/decide.ts";
export {
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  NonInteractiveApprover,
  parseYesFlag,
  TerminalApprover,
} from "./approval/mod.ts";
export { BUILTIN_TOOLS, type BuiltinTool } from "./broker/builtin_tools.ts";
export { derivePermissions } from "./broker/derive_permissions.ts";
export { type PermissionSet, permissionSetKey } from "./broker/permission_set.ts";
export { SandboxBroker, type SandboxBrokerOptions } from "./broker/sandbox_broker.ts";
export { sandboxContextFromEnvironment } from "./broker/sandbox_context.ts";
export type { ToolBroker, ToolInvocation, ToolResult } from "./broker/tool_broker.ts";
export type { Model, ModelDelta, ModelRequest, ModelResponse, ToolSpec } from "./llm/model.ts";
export { OpenAIModel, type OpenAIModelOptions } from "./llm/openai_model.ts";
export { type ListedModel, listModels, type ListModelsOptions } from "./llm/list_models.ts";
export { toWireMessages } from "./llm/to_wire_messages.ts";
export { recordingFetch } from "./llm/recording_fetch.ts";
export { replayFetch } from "./llm/replay_fetch.ts";
export { FileSessionStore } from "./session/file_session_store.ts";
export { MemorySessionStore } from "./session/memory_session_store.ts";
export type {
  OpenSession,
  SessionCompaction,
  SessionMeta,
  SessionStore,
  SessionSummary,
} from "./session/session_store.ts";
export { builtinToolSpecs } from "./loop/builtin_tool_specs.ts";
export { type ResolvedTool, ToolSet, type ToolSetOptions } from "./loop/tool_set.ts";
export type { ProvidedCall, ProvidedTool, ToolProvider } from "./loop/tool_provider.ts";
export { initialMessages } from "./loop/initial_messages.ts";
export {
  runAgent,
  type RunAgentOptions,
  type RunOutcome as AgentOutcome,
} from "./loop/run_agent.ts";
export type { Step, StepInfo, StepRunner } from "./loop/step_runner.ts";
export { journalStepRunner, type StepJournal } from "./loop/journal_step_runner.ts";
export type { CompactionState, ContextOptions } from "./loop/context_manager.ts";
export type { ProtectedMessagePredicate } from "./loop/turn_groups.ts";
export { contextWindowFor } from "./config/context_window_for.ts";
export { knownContextWindow } from "./config/known_context_windows.ts";
export {
  PROVIDER_NAMES,
  PROVIDER_PRESETS,
  type ProviderName,
  type ProviderPreset,
} from "./config/provider_presets.ts";
export { DEFAULT_QUIRKS, type ProviderQuirks } from "./config/provider_quirks.ts";
export { type ResolvedProvider, resolveProvider } from "./config/resolve_provider.ts";
export { type ApiKeyChoice, resolveApiKey } from "./config/resolve_api_key.ts";
export type { BudgetBreach, BudgetName, RunBudgets } from "./loop/budget_checker.ts";
export { isPartialSummary, PARTIAL_SUMMARY_MARKER } from "./loop/partial_summary.ts";
export type { RunEvent, RunEventData, RunEventType } from "./loop/run_event.ts";
export {
  createRuntime,
  EventSubscription,
  type ModelFactory,
  type ModelSpec,
  type OpenSessionOptions,
  Run,
  type RunLimitsOverride,
  type RunOutcome,
  type RunSubscribeOptions,
  Runtime,
  type RuntimeEvent,
  type RuntimeOptions,
  SessionHost,
  type SessionTarget,
  type StartRunOptions,
  type SubscribeOptions,
  type ToolProviderFactory,
  type ToolProviderHost,
  type ToolProviderSource,
} from "./runtime/mod.ts";
export type {
  ConflictAnswer,
  RewindOutcome,
  RewindRequest,
  Turn,
  WorkspaceSessions,
} from "./runtime/mod.ts";
export {
  type Checkpoint,
  type CheckpointLimits,
  type CheckpointStep,
  type CheckpointStore,
  type DiffOptions,
  type FileChange,
  GitCheckpointStore,
  type GitCheckpointStoreOptions,
  type RestoreOptions,
  type RestoreResult,
  type UnrecordedPath,
} from "./checkpoint/mod.ts";
export type { SessionCheckpoint, SessionRecords, SessionRewind } from "./session/session_store.ts";
export type { RewindRecord } from "./session/journal_record.ts";
