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

/**
 * Why a tool call failed; returned to the model, never thrown.
 *
 * @example Retry only what may pass next time
 * ```ts
 * import type { ToolErrorKind } from "./tool_broker.ts";
 * const transient: ToolErrorKind[] = ["timeout", "interrupted"];
 * if (!transient.includes("timeout")) throw new Error("kinds");
 * ```
 */
export type ToolErrorKind =
  | "invalid_arguments"
  | "unknown_tool"
  | "denied"
  | "timeout"
  | "interrupted"
  | "sandbox_unavailable"
  | "failed"
  /** Not run: a budget of the run is spent (the loop refuses it; the broker never returns it). */
  | "budget_exceeded"
  /**
   * Not run: the run stopped before the call was approved or started, and the next run did not
   * ask it again (the loop answers it; the broker never returns it; design §8.3).
   */
  | "not_started";

/**
 * A destination the egress proxy refused (or could not reach), as fields.
 *
 * @example A refused loopback destination
 * ```ts
 * import type { EgressRefusalDetail } from "./tool_broker.ts";
 * const refused: EgressRefusalDetail = {
 *   url: "http://127.0.0.1:8080/admin", host: "127.0.0.1", port: 8080,
 *   decision: { allowed: false, reason: "loopback address" },
 * };
 * if (refused.decision?.allowed !== false) throw new Error("refused");
 * ```
 */
export interface EgressRefusalDetail {
  /** The URL requested (the hop that was refused). */
  url: string;
  /** Its host, an IPv6 literal without brackets. */
  host: string;
  /** Its port (the scheme's default when the URL names none). */
  port: number;
  /** What the proxy decided for `host`:`port` during the call, when it reported a decision. */
  decision?: {
    /** False: refused by policy; true: allowed, but the connection failed. */
    allowed: boolean;
    /** The proxy's reason, e.g. `loopback address`. */
    reason: string;
  };
}

/**
 * Why a tool call failed, as the model is told.
 *
 * @example A denial the model reads
 * ```ts
 * import type { ToolError } from "./tool_broker.ts";
 * const error: ToolError = { kind: "denied", message: "write_file was refused: an untrusted run may only read" };
 * if (error.kind !== "denied") throw new Error("kind");
 * ```
 */
export interface ToolError {
  /** What kind of failure (the model reads it as `error (<kind>): …`). */
  kind: ToolErrorKind;
  /** What failed, why, and what to do. */
  message: string;
  /** Set for a call the egress proxy refused: the message is made from these fields. */
  egress?: EgressRefusalDetail;
}

/**
 * The outcome of one tool call, as data (house style §5).
 *
 * @example Read a result
 * ```ts
 * import type { ToolResult } from "./tool_broker.ts";
 * function text(result: ToolResult): string {
 *   return result.ok ? result.output : `error (${result.error.kind}): ${result.error.message}`;
 * }
 * if (text({ ok: false, error: { kind: "timeout", message: "no answer" } }) !== "error (timeout): no answer") {
 *   throw new Error("text");
 * }
 * ```
 */
export type ToolResult =
  | {
    ok: true;
    output: string;
    /**
     * What makes this result the same as another for the loop's stall detection, when that is
     * not the whole output: a background job's status counts as unchanged while its state and
     * output sizes are, whatever its runtime. @default the output
     */
    stallKey?: string;
    /**
     * odek's own notes about the call (what it undid, what it could not grant): shown to the
     * model after the untrusted-content boundary, so a program's output cannot forge them.
     * @default none
     */
    notes?: readonly string[];
  }
  | {
    ok: false;
    error: ToolError;
    /** As for a success: odek's own notes, shown after the boundary. @default none */
    notes?: readonly string[];
  };

/**
 * One call to run: arguments already parsed from JSON and validated against the tool's schema
 * (when `entry` is set, by the caller: the loop looks each call up and validates it once).
 *
 * @example A validated call with its approved verdict
 * ```ts
 * import type { ToolInvocation } from "./tool_broker.ts";
 * const invocation: ToolInvocation = {
 *   id: "c1",
 *   name: "word_count",
 *   args: { path: "README.md" },
 *   verdict: { decision: "allow", reason: "reads", parts: [{ riskClass: "read", subject: "word_count", targets: [] }] },
 * };
 * if (invocation.verdict?.decision !== "allow") throw new Error("verdict");
 * ```
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
   * @internal set by odek's loop; not part of the library API
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
 * A library tool (`defineTool`) as the broker runs it: a tool whose handler is the default export
 * of a module outside odek, run in a tool child of its own under the scope its call's verdict
 * grants, like a built-in tool's.
 *
 * @example Run a library tool through a broker
 * ```ts
 * import type { ModuleTool, ToolBroker } from "./tool_broker.ts";
 * const tool: ModuleTool = { module: "/srv/my_tools/word_count.ts", timeoutMs: 10_000 };
 * function canRun(broker: ToolBroker): boolean {
 *   return broker.runModuleTool !== undefined;
 * }
 * if (tool.timeoutMs !== 10_000 || typeof canRun !== "function") throw new Error("tool");
 * ```
 */
export interface ModuleTool {
  /** The handler module: an absolute path of a local file (links are resolved). */
  readonly module: string;
  /** A call not answered within this many milliseconds is cancelled. @default 120_000 */
  readonly timeoutMs?: number;
}

/**
 * Files the host runs later that a call (or background job) changed, and odek undid.
 *
 * @example Report an undone hook
 * ```ts
 * import type { ProtectedRevert } from "./tool_broker.ts";
 * const revert: ProtectedRevert = {
 *   callId: "c3",
 *   name: "shell",
 *   paths: [{ path: ".git/hooks/pre-commit", action: "removed" }],
 * };
 * if (revert.paths[0].action !== "removed") throw new Error("action");
 * ```
 */
export interface ProtectedRevert {
  /** The tool-call id (for a background job, the call that started it). */
  callId: string;
  /** The tool's name. */
  name: string;
  /** Each path and what was done: `removed` (it was new), `restored`, or `kept` with why. */
  paths: { path: string; action: "removed" | "restored" | "kept"; why?: string }[];
}

/**
 * A call the broker refused because a path it checked changed before the sandbox used it (a
 * concurrent rename: see docs/security.md, "Races").
 *
 * @example Report a refusal to the operator
 * ```ts
 * import type { SandboxRefusal } from "./tool_broker.ts";
 * const refusal: SandboxRefusal = { callId: "c2", name: "shell", reason: "the workspace was replaced by a link" };
 * if (!refusal.reason.includes("link")) throw new Error("reason");
 * ```
 */
export interface SandboxRefusal {
  /** The tool-call id. */
  callId: string;
  /** The tool's name. */
  name: string;
  /** What differed, for the operator. */
  reason: string;
}

/**
 * Runs tool calls. Implementations must be safe to call concurrently; disposing one
 * (`await using`) is {@linkcode ToolBroker.close}.
 *
 * @example An in-process broker for tests (never for real work: it confines nothing)
 * ```ts
 * import type { ToolBroker, ToolInvocation, ToolResult } from "./tool_broker.ts";
 * const calls: string[] = [];
 * const broker: ToolBroker = {
 *   run(invocation: ToolInvocation): Promise<ToolResult> {
 *     calls.push(invocation.name);
 *     return Promise.resolve({ ok: true, output: "done" });
 *   },
 *   close: () => Promise.resolve(),
 *   [Symbol.asyncDispose]: () => Promise.resolve(),
 * };
 * const result = await broker.run({ id: "c1", name: "glob", args: { pattern: "*" } });
 * await broker.close();
 * if (!result.ok || calls[0] !== "glob") throw new Error("run");
 * ```
 */
export interface ToolBroker extends AsyncDisposable {
  /**
   * Run one call. Never throws for tool-level failures (denial, timeout, bad target, exit code):
   * those come back as `{ ok: false }`. `signal` aborts the call and kills what it started.
   */
  run(invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult>;
  /**
   * {@linkcode ToolBroker.run}, but nothing of the call may take effect before `ready` resolves;
   * work without effects (admission, deriving the scope, rendering a sandbox, taking a spare
   * one) may overlap the wait. The loop passes the journal's `tool_started` write, so the record
   * is on disk before the call can act (design §8.3). When `ready` rejects, the call must not
   * run and the promise rejects with that reason. Brokers need not implement it: the loop then
   * waits for the record before it calls `run`.
   */
  runAfter?(
    invocation: ToolInvocation,
    ready: Promise<void>,
    signal?: AbortSignal,
  ): Promise<ToolResult>;
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
   * Run one approved call of a library tool (`defineTool`) in its own sandboxed tool child; the
   * invocation must carry the verdict it was approved with. Never throws for tool-level
   * failures. Brokers that cannot run modules need not implement it (library tools then fail as
   * data).
   */
  runModuleTool?(
    invocation: ToolInvocation,
    tool: ModuleTool,
    signal?: AbortSignal,
  ): Promise<ToolResult>;
  /**
   * Report each time odek undid a call's changes to files the host runs later (hooks,
   * `.git/config`, `.envrc` …), until the returned function is called.
   */
  onProtectedRevert?(listener: (revert: ProtectedRevert) => void): () => void;
  /**
   * Start a long-lived stdio program (an MCP server) in a sandbox of its own for this broker's
   * workspace (`src/broker/stdio_server.ts`); {@linkcode ToolBroker.close} stops it with
   * everything it started. Brokers that spawn nothing need not implement it.
   * @internal
   */
  startServer?(spec: StdioServerSpec): Promise<StdioServerProcess>;
  /**
   * Start a sub-agent's loop (`odek subagent`, docs/subagents.md): a Deno child with no
   * `--allow-*` flag at all, a cleared environment (no secret) and a process group of its own,
   * outside bwrap (it reads no file and has no hands: every tool call and model request it makes
   * comes back over its stdio). {@linkcode ToolBroker.close} kills it with everything it started.
   * Brokers that spawn nothing need not implement it.
   * @internal
   */
  startSubagent?(spec: StdioServerSpec): Promise<StdioServerProcess>;
  /** Stop every child this broker started. Idempotent. */
  close(): Promise<void>;
}
