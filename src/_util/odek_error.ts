/**
 * The one error family odek throws for operator-facing faults. Tool failures are never thrown:
 * they are returned to the model as data (see {@linkcode ToolResult}).
 *
 * @module
 */

/**
 * Machine-readable error codes. The CLI maps each to an exit code in one place.
 *
 * @example Tell a locked session from other faults
 * ```ts
 * import { OdekError, type OdekErrorCode } from "./odek_error.ts";
 * const code: OdekErrorCode = "SESSION_LOCKED";
 * const error: unknown = new OdekError(code, "The session is in use by another odek process.");
 * if (!(error instanceof OdekError) || error.code !== "SESSION_LOCKED") throw new Error("code");
 * ```
 */
export type OdekErrorCode =
  | "USAGE"
  | "CONFIG_INVALID"
  | "MISSING_API_KEY"
  | "MODEL_UNREACHABLE"
  | "MODEL_ERROR"
  | "MODEL_PROTOCOL"
  /** The provider refused the request as longer than the model's context window (never retried). */
  | "CONTEXT_LENGTH_EXCEEDED"
  | "SANDBOX_UNAVAILABLE"
  | "WORKSPACE_INVALID"
  | "SESSION_NOT_FOUND"
  | "SESSION_LOCKED"
  | "SESSION_CORRUPT"
  /** A session host already has a run going, or was closed. */
  | "SESSION_BUSY"
  /** The durable queue's database (`--queue postgres://…`) cannot be reached. */
  | "QUEUE_UNREACHABLE"
  /** A run's result on the queue is not an odek run's result (another writer, another version). */
  | "QUEUE_RESULT_INVALID"
  | "CASSETTE_MISMATCH"
  | "CASSETTE_INVALID"
  | "BUDGET_EXCEEDED"
  /** A run that kept repeating the same tool calls after a hint was stopped (exit code 5). */
  | "STALLED"
  | "INTERRUPTED"
  | "TOOL_CHILD_FAILED"
  /** A path odek checked was renamed or replaced before it was used (a race; nothing was run). */
  | "PATH_CHANGED"
  /** No checkpoint to restore: unknown id, checkpoints off, or a workspace over the size caps. */
  | "CHECKPOINT_UNAVAILABLE"
  /** A restore would overwrite files changed outside odek, and the operator did not agree. */
  | "RESTORE_CONFLICT"
  /** An MCP server could not be started, reached or logged in to. */
  | "MCP_SERVER_FAILED"
  /**
   * odek's own git (a queued run's repository: fetch, checkpoint commit, push) failed; the
   * message has git's error.
   */
  | "GIT_FAILED";

/**
 * A runtime fault for the operator, with a stable `code` and an optional `cause`.
 *
 * Messages say what failed, why, the value involved and what to do.
 *
 * @example Throw and inspect
 * ```ts
 * import { OdekError } from "./odek_error.ts";
 * const err = new OdekError("SESSION_NOT_FOUND", 'No session named "x": run "odek sessions list"');
 * if (err.code !== "SESSION_NOT_FOUND") throw new Error("unexpected");
 * ```
 */
export class OdekError extends Error {
  /** The stable machine-readable code. */
  readonly code: OdekErrorCode;

  /**
   * Make a fault with its code.
   *
   * @param code the stable code of this fault
   * @param message what failed, why, and what to do
   * @param options `cause`: the underlying error, if any
   */
  constructor(code: OdekErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OdekError";
    this.code = code;
  }
}
