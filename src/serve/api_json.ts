/**
 * The API's JSON shapes (snake_case, like the events) of serve's records.
 *
 * @module
 */
import type { z } from "@hono/zod-openapi";
import type { PendingSchema, RunRecordSchema } from "./api_schemas.ts";
import type { PendingRequest } from "./operator_requests.ts";
import type { ServeRunRecord } from "./run_records.ts";

/** A run record as the API shows it. */
export function runJson(record: ServeRunRecord): z.infer<typeof RunRecordSchema> {
  return {
    key: record.key,
    ...(record.runId ? { run_id: record.runId } : {}),
    session_id: record.sessionId,
    state: record.state,
    ...(record.queuedReason ? { queued_reason: record.queuedReason } : {}),
    created_at: record.createdAt,
    ...(record.startedAt ? { started_at: record.startedAt } : {}),
    ...(record.endedAt ? { ended_at: record.endedAt } : {}),
    workspace: record.workspace,
    ...(record.summary !== undefined ? { summary: record.summary } : {}),
    ...(record.errorCode ? { error_code: record.errorCode } : {}),
    ...(record.warnings?.length ? { warnings: record.warnings } : {}),
    ...(record.git
      ? {
        git: {
          repository: record.git.repository,
          ref: record.git.ref,
          ...(record.git.branch !== undefined ? { branch: record.git.branch } : {}),
          ...(record.git.base !== undefined ? { base: record.git.base } : {}),
          ...(record.git.head !== undefined ? { head: record.git.head } : {}),
          ...(record.git.checkpoints !== undefined ? { checkpoints: record.git.checkpoints } : {}),
          ...(record.git.files ? { files: record.git.files } : {}),
          ...(record.git.diff !== undefined ? { diff: record.git.diff } : {}),
          ...(record.git.diffTruncated !== undefined
            ? { diff_truncated: record.git.diffTruncated }
            : {}),
        },
      }
      : {}),
    ...(record.usage
      ? {
        usage: {
          input_tokens: record.usage.inputTokens,
          output_tokens: record.usage.outputTokens,
          tool_calls: record.usage.toolCalls,
        },
      }
      : {}),
  };
}

/** A pending question as the API shows it. */
export function pendingJson(request: PendingRequest): z.infer<typeof PendingSchema> {
  const base = {
    id: request.id,
    type: request.type,
    session_id: request.sessionId,
    created_at: request.createdAt,
  };
  return request.type === "clarification" ? { ...base, question: request.question } : {
    ...base,
    calls: request.calls.map((call) => ({
      call_id: call.callId,
      tool_name: call.toolName,
      risk_classes: call.riskClasses,
      preview: call.preview,
      reason: call.reason,
    })),
  };
}
