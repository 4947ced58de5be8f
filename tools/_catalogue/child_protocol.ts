/**
 * The protocol between the core and a tool child, the one definition both ends validate against
 * (with zod, on receipt): one JSON message per line.
 *
 * Core → child: `call` (run a tool), `cancel` (stop a call: its handler's `AbortSignal` aborts),
 * `preload` (load every handler now, ahead of the first call). Child → core: `result` (exactly
 * one per call, cancelled calls included) and `rejected` (a line the child could not attribute to
 * a call). A failed call carries a typed error: its `kind`, a message for the model, and data
 * where the kind has some (an egress refusal names the URL, host and port it was refused for).
 *
 * @module
 */
import { z } from "zod";

const CallId = z.int().nonnegative();

/** Run one tool call. `workspace` is the realpathed workspace every target must lie in. */
export const CallMessageSchema = z.strictObject({
  type: z.literal("call"),
  id: CallId,
  tool: z.string().min(1).max(128),
  args: z.record(z.string(), z.unknown()),
  workspace: z.string().startsWith("/"),
  /** Realpathed directories the operator granted besides the workspace (`--add-dir`). */
  roots: z.array(z.string().startsWith("/")).optional(),
  /**
   * Single files the call's approval granted (outside the workspace, or protected files in it):
   * written in place, never through a temporary file beside them.
   */
  grants: z.array(z.string().startsWith("/")).optional(),
  /** Protected places besides the fixed names (relative to the workspace): refused unless granted. */
  protect: z.array(z.string()).optional(),
});
/** Run one tool call. */
export type CallMessage = z.infer<typeof CallMessageSchema>;

/** Stop a call: the core stopped waiting for it (`aborted`: the run was interrupted; `timeout`). */
export const CancelMessageSchema = z.strictObject({
  type: z.literal("cancel"),
  id: CallId,
  reason: z.enum(["aborted", "timeout"]),
});
/** Stop a call. */
export type CancelMessage = z.infer<typeof CancelMessageSchema>;

/** Load every handler of the child now (sent when the core starts a child ahead of its use). */
export const PreloadMessageSchema = z.strictObject({
  type: z.literal("preload"),
});

/** Every message the core sends. */
export const CoreMessageSchema = z.discriminatedUnion("type", [
  CallMessageSchema,
  CancelMessageSchema,
  PreloadMessageSchema,
]);
/** Every message the core sends. */
export type CoreMessage = z.infer<typeof CoreMessageSchema>;

const message = z.string();
const thrown = {
  message,
  name: z.string().optional(),
  code: z.string().optional(),
};

/**
 * Why a call failed, as data:
 * - `invalid_arguments`: the arguments do not fit the tool's schema, or a value is out of range;
 * - `unknown_tool`: the child does not serve `tool`;
 * - `denied`: a refusal (a target outside the workspace) or a sandbox denial (`NotCapable`,
 *   EACCES, EROFS), with the thrown error's `name` and `code`;
 * - `egress_refused`: the egress proxy refused `host`:`port` (or could not reach it: through a
 *   tunnel the child cannot tell which; the core's proxy knows and says why);
 * - `cancelled`: the call was cancelled and stopped;
 * - `failed`: anything else, with the thrown error's `name` and `code`.
 */
export const ChildErrorSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("invalid_arguments"), message }),
  z.strictObject({
    kind: z.literal("unknown_tool"),
    message,
    tool: z.string(),
  }),
  z.strictObject({ kind: z.literal("denied"), ...thrown }),
  z.strictObject({
    kind: z.literal("egress_refused"),
    message,
    url: z.string(),
    /** The host as the URL names it, IPv6 literals without brackets. */
    host: z.string(),
    port: z.int().min(1).max(65535),
  }),
  z.strictObject({ kind: z.literal("cancelled"), message }),
  z.strictObject({ kind: z.literal("failed"), ...thrown }),
]);
/** Why a call failed, as data. */
export type ChildError = z.infer<typeof ChildErrorSchema>;

/** The one answer to a call. */
export const ResultMessageSchema = z.discriminatedUnion("ok", [
  z.strictObject({
    type: z.literal("result"),
    id: CallId,
    ok: z.literal(true),
    output: z.string(),
  }),
  z.strictObject({
    type: z.literal("result"),
    id: CallId,
    ok: z.literal(false),
    error: ChildErrorSchema,
  }),
]);
/** The one answer to a call. */
export type ResultMessage = z.infer<typeof ResultMessageSchema>;

/** A line the child could not attribute to a call (not JSON, or no valid call id). */
export const RejectedMessageSchema = z.strictObject({
  type: z.literal("rejected"),
  message: z.string(),
});

/** Every message a child sends. */
export const ChildMessageSchema = z.union([
  ResultMessageSchema,
  RejectedMessageSchema,
]);
/** Every message a child sends. */
export type ChildMessage = z.infer<typeof ChildMessageSchema>;

/**
 * Parse one received line against a schema.
 *
 * @param schema what the line must be
 * @param line one message, JSON
 * @returns the message, or why it is not one (`SyntaxError` text or zod's issues)
 *
 * @example
 * ```ts
 * import { CoreMessageSchema, parseMessage } from "./child_protocol.ts";
 * const parsed = parseMessage(CoreMessageSchema, '{"type":"cancel","id":3,"reason":"aborted"}');
 * if (!parsed.ok || parsed.message.type !== "cancel") throw new Error("not a cancel");
 * ```
 */
export function parseMessage<T>(
  schema: z.ZodType<T>,
  line: string,
): { ok: true; message: T } | { ok: false; json: unknown; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return {
      ok: false,
      json: undefined,
      problem: `not JSON (${(error as Error).message})`,
    };
  }
  const parsed = schema.safeParse(json);
  return parsed.success
    ? { ok: true, message: parsed.data }
    : { ok: false, json, problem: z.prettifyError(parsed.error) };
}
