/**
 * The runtime layer (design §1, §8.1–8.4): `createRuntime()` → `runtime.openSession()` (a
 * session host) → `host.startRun()` (a run with numbered events, a result, cancel and dispose).
 * Every surface — the CLI, a server, MCP, a script — drives odek through it; see
 * docs/runtime.md.
 *
 * @module
 */
export { createRuntime, type RuntimeOptions } from "./create_runtime.ts";
export { Runtime } from "./runtime.ts";
export type { ModelFactory, ModelSpec } from "./build_model.ts";
export { openAIModelFor } from "./build_model.ts";
export type { ResolvedWorkspace } from "./compose.ts";
export type { OpenSessionOptions, SessionTarget } from "./open_session_host.ts";
export { type RunLimitsOverride, SessionHost, type StartRunOptions } from "./session_host.ts";
export { Run } from "./run.ts";
export type { RunOutcome } from "./run_outcome.ts";
export { EventSubscription, type RuntimeEvent } from "./event_subscription.ts";
export type { SubscribeOptions } from "./event_hub.ts";
export type { RunSubscribeOptions } from "./run_event_log.ts";
export { runtimeTools } from "./runtime_tools.ts";
export type {
  ToolProviderFactory,
  ToolProviderHost,
  ToolProviderSource,
} from "./tool_provider_source.ts";
export { type ChildDeno, childDenoPath, PINNED_DENO_VERSION } from "./child_deno_path.ts";
export { probeEgressProxy } from "./probe_egress_proxy.ts";
export {
  type ConflictAnswer,
  listTurns,
  type RewindOutcome,
  type RewindRequest,
  rewindSession,
  type Turn,
} from "./rewind_session.ts";
export type { WorkspaceSessions } from "./stored_sessions.ts";
