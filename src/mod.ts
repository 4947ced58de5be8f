/**
 * odek as a library: an autonomous agent runtime whose every tool call runs sandboxed with the
 * permissions its verdict grants. Build a runtime ({@linkcode createRuntime}), open a session host
 * on a workspace ({@linkcode Runtime.openSession}), start runs on it
 * ({@linkcode SessionHost.startRun}) and read their numbered events and outcome; add tools of your
 * own with {@linkcode defineTool}. Fakes for tests (a scripted model, a fake OpenAI-compatible
 * server) are in `./testing`. See docs/library.md; this release is used from a local checkout,
 * imported by file path.
 *
 * @example Run a task against a scripted model
 * ```ts
 * import { createRuntime } from "./mod.ts";
 * import { ScriptedModel } from "./testing/mod.ts";
 *
 * const home = await Deno.makeTempDir();
 * const workspace = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin" },
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

// The runtime: createRuntime → session hosts → runs.
export { createRuntime, type RuntimeOptions } from "./runtime/create_runtime.ts";
export { Runtime } from "./runtime/runtime.ts";
export type { OpenSessionOptions, SessionTarget } from "./runtime/open_session_host.ts";
export {
  type RunLimitsOverride,
  SessionHost,
  type StartRunOptions,
} from "./runtime/session_host.ts";
export { Run } from "./runtime/run.ts";
export type { ModelFactory, ModelSpec } from "./runtime/build_model.ts";
export { OdekError, type OdekErrorCode } from "./_util/odek_error.ts";
export type { ConfigLayer, ModelFacts, OdekConfig } from "./config/odek_config.ts";
export type { ListedModel } from "./llm/list_models.ts";
export type { OdekPaths } from "./config/odek_paths.ts";
export type { ProviderName } from "./config/provider_presets.ts";
export type { ProviderQuirks } from "./config/provider_quirks.ts";

// Events and outcomes.
export { EventSubscription, type RuntimeEvent } from "./runtime/event_subscription.ts";
export type { SubscribeOptions } from "./runtime/event_hub.ts";
export type { RunSubscribeOptions } from "./runtime/run_event_log.ts";
export type { RunEvent, RunEventData, RunEventType } from "./loop/run_event.ts";
export type { Discarded, RunOutcome } from "./runtime/run_outcome.ts";
export type { Stall } from "./loop/stall_detector.ts";
export type { FileChangeData } from "./loop/run_event.ts";
export type { RunStats } from "./loop/run_stats.ts";
export type { BudgetBreach, BudgetName, RunBudgets } from "./loop/budget_checker.ts";

// Tools of your own.
export {
  defineTool,
  type DefineToolOptions,
  type ToolAccess,
  type ToolModuleContext,
  type ToolModuleHandler,
} from "./runtime/define_tool.ts";
export type {
  ToolProviderFactory,
  ToolProviderHost,
  ToolProviderSource,
} from "./runtime/tool_provider_source.ts";
export type {
  ProvidedCall,
  ProvidedCallContext,
  ProvidedTool,
  ToolProvider,
} from "./loop/tool_provider.ts";

// Sub-agents (docs/subagents.md).
export { delegateTasks, type DelegateTasksOptions } from "./runtime/subagents/delegate_tasks.ts";
export type {
  ArgsIssue,
  ArgsResult,
  ArgsSchema,
  ClassificationRule,
  RiskClass,
} from "../tools/_catalogue/tool_entry.ts";
export type {
  EgressRefusalDetail,
  ModuleTool,
  ProtectedRevert,
  SandboxRefusal,
  ToolBroker,
  ToolError,
  ToolErrorKind,
  ToolInvocation,
  ToolResult,
} from "./broker/tool_broker.ts";
export type { EgressDecision } from "./broker/egress_proxy.ts";
export type { TrustLevel, Verdict, VerdictPart } from "./danger/verdict.ts";
export type { AddDir } from "./config/add_dirs.ts";
export type { DenyRule, DenyRuleKind } from "./config/deny_rule.ts";

// The model.
export type {
  Model,
  ModelDelta,
  ModelRequest,
  ModelResponse,
  ModelRetry,
  ModelUsage,
  ToolSpec,
} from "./llm/model.ts";
export { OpenAIModel, type OpenAIModelOptions } from "./llm/openai_model.ts";
export type { RetryPolicyOptions } from "./llm/retry_policy.ts";
export type { Clock } from "./llm/clock.ts";
export type { AssistantMessage, ChatMessage, ToolCall } from "./_util/chat_message.ts";

// Sessions.
export type {
  CreateSessionInit,
  OpenSession,
  PendingToolCall,
  SessionCheckpoint,
  SessionCompaction,
  SessionMeta,
  SessionMetaPatch,
  SessionRecords,
  SessionRewind,
  SessionSpend,
  SessionStore,
  SessionSummary,
  SessionUsage,
  TornTail,
} from "./session/session_store.ts";
export type { ToolCallRepair } from "./session/repair_tool_calls.ts";
export type { RewindRecord } from "./session/journal_record.ts";
export { FileSessionStore } from "./session/file_session_store.ts";
export { MemorySessionStore } from "./session/memory_session_store.ts";

// Approvals and questions.
export type {
  ApprovalAnswer,
  ApprovalCall,
  ApprovalRequest,
  Approver,
} from "./approval/approver.ts";
export {
  NonInteractiveApprover,
  type NonInteractiveApproverOptions,
} from "./approval/non_interactive_approver.ts";
export { type Clarifier, type ClarifyAnswer, NoOperatorClarifier } from "./approval/clarifier.ts";
export type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationFieldBase,
  ElicitationOption,
  ElicitationRequest,
  ElicitationValue,
} from "./approval/elicitation.ts";

// Project MCP servers (approved when a host opens) and odek as an MCP server.
export type {
  ApprovedProjectMcpServer,
  AskProjectMcpServer,
  McpServerAnswer,
  McpServerApprovalRequest,
} from "./config/approve_project_mcp_servers.ts";
export type { ProjectMcpServer } from "./config/mcp_servers.ts";
export type { DirectToolCall } from "./runtime/direct_call_model.ts";
export {
  type McpServeHandle,
  type McpServeOptions,
  type McpServeTransport,
  serveMcp,
} from "./mcp/mcp_serve.ts";

// Undo and rewind: checkpoints of the workspace around each writing step.
export type {
  ConflictAnswer,
  RewindOutcome,
  RewindRequest,
  Turn,
  WorkspaceSessions,
} from "./runtime/mod.ts";
export type { DiffOptions, FileChange, RestoreResult, UnrecordedPath } from "./checkpoint/mod.ts";
