/**
 * The file-tool child's side of the JSON-lines protocol (one JSON object per line on stdin and
 * stdout). The core keeps its own copy of these shapes (`src/broker/_tool_child_protocol.ts`):
 * `tools/` imports nothing from `src/`.
 *
 * @module
 */
import { z } from "zod";

/** One request from the core. `workspace` is the realpathed workspace every target must be in. */
export const ToolRequestSchema = z.object({
  id: z.int().nonnegative(),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  workspace: z.string().startsWith("/"),
  /** Realpathed directories the operator granted besides the workspace (`--add-dir`). */
  roots: z.array(z.string().startsWith("/")).optional(),
});
/** One request from the core. */
export type ToolRequest = z.infer<typeof ToolRequestSchema>;

/** How a tool call failed, as the model will be told. */
export type FailureKind = "denied" | "failed" | "invalid_arguments";

/** One response line. */
export type ToolResponse =
  | { id: number; ok: true; output: string }
  | {
    id: number;
    ok: false;
    error: { name: string; message: string; code?: string; kind: FailureKind };
  };

/**
 * A refusal or failure a tool reports to the model as data.
 *
 * @example Refuse a path
 * ```ts
 * import { ToolFailure } from "./_protocol.ts";
 * const failure = new ToolFailure("denied", "a.txt is outside the workspace");
 * if (failure.kind !== "denied") throw new Error("unexpected kind");
 * ```
 */
export class ToolFailure extends Error {
  /** How the call failed. */
  readonly kind: FailureKind;

  /**
   * @param kind how the call failed
   * @param message what failed, why, the value, what to do
   */
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.name = "ToolFailure";
    this.kind = kind;
  }
}

/**
 * Turn anything a tool threw into a response. Deno denials (`NotCapable`), OS denials
 * (`PermissionDenied`, EACCES) and writes to a read-only mount (EROFS) are `denied`.
 *
 * @param id the request id
 * @param tool the tool name, used in the message
 * @param error what was thrown
 * @returns the failure response
 *
 * @example A Deno denial
 * ```ts
 * import { failureResponse } from "./_protocol.ts";
 * const response = failureResponse(1, "write_file", new Deno.errors.NotCapable("Requires write access"));
 * if (response.ok || response.error.kind !== "denied") throw new Error("not a denial");
 * ```
 */
export function failureResponse(
  id: number,
  tool: string,
  error: unknown,
): ToolResponse {
  if (error instanceof ToolFailure) {
    return {
      id,
      ok: false,
      error: { name: error.name, message: error.message, kind: error.kind },
    };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const rawCode: unknown = (err as Error & { code?: unknown }).code;
  const code = typeof rawCode === "string" ? rawCode : undefined;
  const denied = err instanceof Deno.errors.NotCapable ||
    err instanceof Deno.errors.PermissionDenied || code === "EACCES" ||
    code === "EROFS" ||
    code === "EPERM";
  const message = denied
    ? `${tool} was denied by the sandbox: ${err.message}. The scope of this call does not allow it.`
    : `${tool} failed: ${err.message}`;
  return {
    id,
    ok: false,
    error: {
      name: err.name,
      message,
      ...(code ? { code } : {}),
      kind: denied ? "denied" : "failed",
    },
  };
}
