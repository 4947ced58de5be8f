/**
 * The broker seam: runs one validated tool call in its sandboxed child and returns the result as
 * data. The real broker is {@linkcode SandboxBroker}; unit tests use an in-process fake.
 *
 * @module
 */
import type { ToolEntry } from "../../tools/_catalogue/mod.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { EgressDecision } from "./egress_proxy.ts";
import type { StdioServerProcess, StdioServerSpec } from "./stdio_server.ts";

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

/** A destination the egress proxy refused (or could not reach), as fields. */
export interface EgressRefusalDetail {
  /** The URL requested (the hop that was refused). */
  url: string;
  /** Its host, an IPv6 literal without brackets. */
  host: string;
  port: number;
  /** What the proxy decided for `host`:`port` during the call, when it reported a decision. */
  decision?: {
    /** False: refused by policy; true: allowed, but the connection failed. */
    allowed: boolean;
    /** The proxy's reason, e.g. `loopback address`. */
    reason: string;
  };
}

/** Why a tool call failed, as the model is told. */
export interface ToolError {
  kind: ToolErrorKind;
  message: string;
  /** Set for a call the egress proxy refused: the message is made from these fields. */
  egress?: EgressRefusalDetail;
}

/** The outcome of one tool call, as data (house style §5). */
export type ToolResult =
  | { ok: true; output: string }
  | { ok: false; error: ToolError };

/**
 * One call to run: arguments already parsed from JSON and validated against the tool's schema
 * (when `entry` is set, by the caller: the loop looks each call up and validates it once).
 */
export interface ToolInvocation {
  /** The tool-call id the result answers. */
  id: string;
  /** Tool name, e.g. `read_file`. */
  name: string;
  /** Validated arguments (the schema's output: defaults applied). */
  args: Record<string, unknown>;
  /**
   * The built-in tool's catalogue entry, when the caller looked the call up and validated `args`
   * against `entry.args`: the broker then neither looks it up nor validates it again. Without
   * it, the broker does both.
   */
  entry?: ToolEntry;
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

/**
 * Runs tool calls. Implementations must be safe to call concurrently; disposing one
 * (`await using`) is {@linkcode ToolBroker.close}.
 */
export interface ToolBroker extends AsyncDisposable {
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
  /**
   * Start a long-lived stdio program (an MCP server) in a sandbox of its own for this broker's
   * workspace (`src/broker/stdio_server.ts`); {@linkcode ToolBroker.close} stops it with
   * everything it started. Brokers that spawn nothing need not implement it.
   */
  startServer?(spec: StdioServerSpec): Promise<StdioServerProcess>;
  /** Stop every child this broker started. Idempotent. */
  close(): Promise<void>;
}
