/**
 * `/api/approvals` and `/api/clarifications`: what the runs wait on, and the answers that let
 * them go on. An answer reaches the run's `Approver`/`Clarifier` call that is waiting.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { errorBody } from "./api_error.ts";
import { pendingJson } from "./api_json.ts";
import { AnswerRefused } from "./remote_approvals.ts";
import {
  ApprovalBodySchema,
  ClarificationBodySchema,
  ErrorSchema,
  PendingSchema,
} from "./api_schemas.ts";
import type { AppContext } from "./create_app.ts";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const idParam = z.object({ id: z.string().regex(/^(?:apr|clr)-[0-9a-f]{16}$/) });
const listQuery = z.object({ session_id: z.string().max(128).optional() });
const answerResponses = {
  204: { description: "Answered: the run goes on" },
  400: json(ErrorSchema, "Invalid answer"),
  401: json(ErrorSchema, "No or wrong token"),
  404: json(ErrorSchema, "Not pending (no such question, or its run stopped)"),
  409: json(ErrorSchema, "Answered already"),
};

/** Register the approval and clarification routes. */
export function registerOperatorApi(app: OpenAPIHono, ctx: AppContext): void {
  for (const type of ["approval", "clarification"] as const) {
    app.openapi(
      createRoute({
        method: "get",
        path: `/api/${type}s`,
        summary: `Pending ${type}s, oldest first (of one session with session_id)`,
        request: { query: listQuery },
        responses: {
          200: json(z.object({ pending: z.array(PendingSchema) }), `Pending ${type}s`),
          400: json(ErrorSchema, "Invalid query"),
          401: json(ErrorSchema, "No or wrong token"),
        },
      }),
      (c) => {
        const { session_id } = c.req.valid("query");
        const pending = ctx.requests.list(session_id).filter((r) => r.type === type);
        return c.json(
          { pending: pending.map(pendingJson) },
          200,
        );
      },
    );
  }

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/approvals/{id}",
      summary: "Answer a pending approval: one decision per call (calls left out are denied)",
      request: {
        params: idParam,
        body: { content: { "application/json": { schema: ApprovalBodySchema } }, required: true },
      },
      responses: answerResponses,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const pending = ctx.requests.get(id);
      if (!pending || pending.type !== "approval") {
        const answered = ctx.requests.answered(id) ||
          (await ctx.runs.remote?.approvalState(id).catch(() => "unknown")) === "answered";
        return answered
          ? c.json(errorBody("ALREADY_ANSWERED", `${id} was answered already.`), 409)
          : c.json(errorBody("NOT_PENDING", `${id} is not a pending approval.`), 404);
      }
      const known = new Set(pending.calls.map((call) => call.callId));
      const unknown = body.decisions.find((d) => !known.has(d.call_id));
      if (unknown) {
        return c.json(
          errorBody("BAD_REQUEST", `${id} has no call ${unknown.call_id}: nothing was answered.`),
          400,
        );
      }
      ctx.requests.answer(id, {
        decisions: body.decisions.map((d) => ({
          callId: d.call_id,
          approved: d.approved,
          ...(d.scope ? { scope: d.scope } : {}),
          ...(d.reason !== undefined ? { reason: d.reason } : {}),
        })),
      });
      try {
        await ctx.requests.delivered(id); // a queued run's: its continuation is on the queue
      } catch (error) {
        if (!(error instanceof AnswerRefused)) throw error;
        return c.json(errorBody(error.code, error.message), error.status);
      }
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/clarifications/{id}",
      summary: "Answer a pending clarification ({ answer }) or decline it ({ declined: reason })",
      request: {
        params: idParam,
        body: {
          content: { "application/json": { schema: ClarificationBodySchema } },
          required: true,
        },
      },
      responses: answerResponses,
    }),
    (c) => {
      const { id } = c.req.valid("param");
      const pending = ctx.requests.get(id);
      if (!pending || pending.type !== "clarification") {
        return ctx.requests.answered(id)
          ? c.json(errorBody("ALREADY_ANSWERED", `${id} was answered already.`), 409)
          : c.json(errorBody("NOT_PENDING", `${id} is not a pending clarification.`), 404);
      }
      ctx.requests.answer(id, c.req.valid("json"));
      return c.body(null, 204);
    },
  );
}
