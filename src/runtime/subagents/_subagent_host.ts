/**
 * What `delegate_tasks` needs of its session host beyond what every tool provider factory is
 * told (`ToolProviderHost`): the host's model client (it holds the key; the children never do),
 * the session store (the parent writes each child's journal), a gate at a given trust level
 * (the host's classifier, deny rules and approver), and where the children's deno and modules
 * are. `openSessionHost` attaches them to the host object it hands the factories; nothing else
 * can reach them (a symbol-keyed field), and the public `ToolProviderHost` type stays as it is.
 *
 * @module
 */
import type { TrustLevel } from "../../config/trust_level.ts";
import type { Model } from "../../llm/model.ts";
import type { ToolGate } from "../../loop/gate_tool_calls.ts";
import type { SessionStore } from "../../session/session_store.ts";
import type { ToolProviderHost } from "../tool_provider_source.ts";

/** The parts of a host a `delegate_tasks` factory uses. */
export interface SubagentHostParts {
  /** The host's model client: every child's turn is relayed through it. */
  model: Model;
  /** The model and base URL the children's sessions record. */
  modelName: string;
  baseUrl: string;
  store: SessionStore;
  /** A gate with the host's classifier, deny rules and approver, at `trust`. */
  gateFor(trust: TrustLevel): ToolGate;
  /** The deno binary the children run with, its cache, and odek's install directory. */
  denoPath: string;
  denoDir: string;
  installDir: string;
  /** Where the children's stderr logs go. */
  logDir: string;
  /** Sub-agents of one call that run at once (config `subagents.maxConcurrency`). */
  maxConcurrency: number;
}

/** The key the parts travel under on the host object (absent from the public type). */
export const SUBAGENT_HOST: unique symbol = Symbol("odek.subagentHost");

/** A host object with its parts attached (made by `openSessionHost`). */
export type WithSubagentHost<T extends ToolProviderHost> = T & {
  readonly [SUBAGENT_HOST]: SubagentHostParts;
};

/** The parts attached to `host`, if a runtime opened it. */
export function subagentHostParts(host: ToolProviderHost): SubagentHostParts | undefined {
  return (host as Partial<WithSubagentHost<ToolProviderHost>>)[SUBAGENT_HOST];
}
