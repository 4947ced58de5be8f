/**
 * The broker seam: runs one validated tool call in its sandboxed child and returns the result as
 * data. The real broker is {@linkcode SandboxBroker}; unit tests use an in-process fake.
 *
 * @module
 */
import type { Verdict } from "../danger/verdict.ts";
import type { EgressDecision } from "./egress_proxy.ts";

/** Why a tool call failed; returned to the model, never thrown. */
export type ToolErrorKind =
  | "invalid_arguments"
  | "unknown_tool"
  | "denied"
  | "timeout"
  | "interrupted"
  | "sandbox_unavailable"
  | "failed"
  /** Not run: a budget of the run is spent (the loop refuses it; the broker never returns it). */
  | "budget_exceeded";

/** The outcome of one tool call, as data (house style §5). */
export type ToolResult =
  | { ok: true; output: string }
  | { ok: false; error: { kind: ToolErrorKind; message: string } };

/** One call to run: arguments already parsed from JSON and validated against the tool's schema. */
export interface ToolInvocation {
  /** The tool-call id the result answers. */
  id: string;
  /** Tool name, e.g. `read_file`. */
  name: string;
  /** Validated arguments. */
  args: Record<string, unknown>;
  /**
   * The classifier's verdict on this call, already approved by the caller (an `ask` verdict here
   * means the operator said yes). Its parts decide the call's scope. @default the fixed safe
   * scope of `fixedVerdict`
   */
  verdict?: Verdict;
}

/**
 * A call the broker refused because a path it checked changed before the sandbox used it (a
 * concurrent rename: see docs/security.md, "Races").
 */
export interface SandboxRefusal {
  /** The tool-call id. */
  callId: string;
  name: string;
  /** What differed, for the operator. */
  reason: string;
}

/** Runs tool calls. Implementations must be safe to call concurrently. */
export interface ToolBroker {
  /**
   * Run one call. Never throws for tool-level failures (denial, timeout, bad target, exit code):
   * those come back as `{ ok: false }`. `signal` aborts the call and kills what it started.
   */
  run(invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult>;
  /**
   * A hint that the caller is about to wait (for the model): a good moment to start what the next
   * call will need, such as a spare sandbox. Synchronous work here must be short; never throws.
   */
  prepare?(): void;
  /**
   * Report each egress decision (a destination a call with network asked for) until the
   * returned function is called. Brokers without egress need not implement it.
   */
  onEgress?(listener: (decision: EgressDecision) => void): () => void;
  /**
   * Report each call refused because a path it was to use changed after it was checked, until
   * the returned function is called. Brokers without sandboxes need not implement it.
   */
  onSandboxRefusal?(listener: (refusal: SandboxRefusal) => void): () => void;
  /** Stop every child this broker started. Idempotent. */
  close(): Promise<void>;
}
