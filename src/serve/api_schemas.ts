/**
 * The zod schemas of the HTTP API's bodies, parameters and answers: requests are validated by
 * them, and the OpenAPI document is generated from them.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";

/** A session id as the store makes or accepts them. */
export const SessionIdSchema = z.string().min(1).max(128).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)
  .openapi({ example: "20260101-120000-abcdef" });

/** A run key: a run id (32 hex) or a queued run's `q-<uuid>`. */
export const RunKeySchema = z.string().regex(/^(?:[0-9a-f]{32}|q-[0-9a-f-]{36})$/).openapi({
  example: "0123456789abcdef0123456789abcdef",
});

/** The error body of every 4xx and 5xx answer. */
export const ErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
}).openapi("Error");

/** A serve run. */
export const RunRecordSchema = z.object({
  key: z.string(),
  run_id: z.string().optional(),
  session_id: z.string(),
  state: z.enum([
    "queued",
    "running",
    "completed",
    "budget_exceeded",
    "stalled",
    "interrupted",
    "failed",
  ]),
  queued_reason: z.string().optional(),
  created_at: z.string(),
  started_at: z.string().optional(),
  ended_at: z.string().optional(),
  workspace: z.string(),
  summary: z.string().optional(),
  error_code: z.string().optional(),
  /** The session host's warnings (no bwrap, no egress proxy, project keys ignored, …). */
  warnings: z.array(z.string()).optional(),
  git: z.object({
    repository: z.string(),
    ref: z.string(),
    branch: z.string().optional(),
    base: z.string().optional(),
    head: z.string().optional(),
    checkpoints: z.number().optional(),
    files: z.array(z.object({ path: z.string(), change: z.string() })).optional(),
    diff: z.string().optional(),
    diff_truncated: z.boolean().optional(),
  }).optional(),
  usage: z.object({
    input_tokens: z.number(),
    output_tokens: z.number(),
    tool_calls: z.number(),
  }).optional(),
}).openapi("Run");

/** `POST /api/runs`: a new session's task, or a message to (or a resume of) a session. */
export const RunStartSchema = z.union([
  z.strictObject({
    task: z.string().min(1).max(1_048_576),
    session_id: SessionIdSchema.optional(),
    workspace: z.string().min(1).max(4096).optional(),
    /** With `--queue`: the workspace is this repository (a URL or a path workers reach) at `ref`. */
    repository: z.string().min(1).max(2000).optional(),
    ref: z.string().min(1).max(200).optional(),
    /** The run branch. @default `odek/run/<key>` */
    branch: z.string().min(1).max(200).optional(),
  }),
  z.strictObject({
    session_id: SessionIdSchema,
    message: z.string().min(1).max(1_048_576).optional(),
  }),
]).openapi("RunStart");

/** A session row of the list. */
export const SessionRowSchema = z.object({
  id: z.string(),
  title: z.string(),
  workspace: z.string(),
  model: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  message_count: z.number(),
  locked: z.boolean(),
  problem: z.string().optional(),
  run: RunRecordSchema.optional(),
}).openapi("SessionRow");

/** One transcript message as the API shows it. */
export const MessageSchema = z.object({
  role: z.string(),
  content: z.unknown(),
  tool_calls: z.unknown().optional(),
  tool_call_id: z.string().optional(),
}).openapi("Message");

/** A session in full. */
export const SessionSchema = z.object({
  id: z.string(),
  title: z.string(),
  workspace: z.string(),
  model: z.string(),
  base_url: z.string(),
  created_at: z.string(),
  messages: z.array(MessageSchema),
  run: RunRecordSchema.optional(),
  runs: z.array(RunRecordSchema),
  pending: z.array(z.unknown()),
}).openapi("Session");

/** `POST /api/sessions/{id}/rewind`. */
export const RewindBodySchema = z.strictObject({
  turn: z.int().min(1).max(1_000_000).optional(),
  files: z.boolean().optional(),
  conversation: z.boolean().optional(),
  on_conflict: z.enum(["overwrite", "keep", "cancel"]).optional(),
}).openapi("Rewind");

/** A pending approval or clarification. */
export const PendingSchema = z.object({
  id: z.string(),
  type: z.enum(["approval", "clarification"]),
  session_id: z.string(),
  created_at: z.string(),
  question: z.string().optional(),
  calls: z.array(z.object({
    call_id: z.string(),
    tool_name: z.string(),
    risk_classes: z.array(z.string()),
    preview: z.string(),
    reason: z.string(),
  })).optional(),
}).openapi("Pending");

/** `POST /api/approvals/{id}`. */
export const ApprovalBodySchema = z.strictObject({
  decisions: z.array(z.strictObject({
    call_id: z.string().min(1).max(256),
    approved: z.boolean(),
    scope: z.enum(["once", "class"]).optional(),
    reason: z.string().max(4096).optional(),
  })).min(1).max(256),
}).openapi("ApprovalAnswer");

/** `POST /api/clarifications/{id}`. */
export const ClarificationBodySchema = z.union([
  z.strictObject({ answer: z.string().min(1).max(65_536) }),
  z.strictObject({ declined: z.string().min(1).max(4096) }),
]).openapi("ClarificationAnswer");

/** Tokens and cost. */
export const UsageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  tool_calls: z.number(),
  cost_usd: z.number().optional(),
}).openapi("Usage");

/** `GET /api/sessions` query. */
export const SessionQuerySchema = z.object({
  q: z.string().max(256).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
});

/** The `after` query of the event streams. */
export const EventsQuerySchema = z.object({
  after: z.string().max(200).optional(),
});
