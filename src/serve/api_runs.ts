/**
 * `/api/runs`: start a run (a new session's task, or a message to a session), list, status,
 * cancel. A start answers at once: the run is `running`, or `queued` with the reason.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { errorBody } from "./api_error.ts";
import { runJson } from "./api_json.ts";
import { ErrorSchema, RunKeySchema, RunRecordSchema, RunStartSchema } from "./api_schemas.ts";
import type { AppContext } from "./create_app.ts";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const keyParam = z.object({ key: RunKeySchema });

/** The git part of a start (checked by `ServeRuns.submit`: a repository needs its ref and a queue). */
function gitStart(body: { repository?: string; ref?: string; branch?: string }) {
  if (body.repository === undefined && body.ref === undefined && body.branch === undefined) {
    return {};
  }
  return {
    git: {
      repository: body.repository ?? "",
      ref: body.ref ?? "",
      ...(body.branch !== undefined ? { branch: body.branch } : {}),
    },
  };
}

/** Register the run routes. */
export function registerRunsApi(app: OpenAPIHono, ctx: AppContext): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/api/runs",
      summary:
        "Start a run: { task, workspace? } (or with --queue { task, repository, ref }) starts a new session; { session_id, message? } continues one",
      request: {
        body: { content: { "application/json": { schema: RunStartSchema } }, required: true },
      },
      responses: {
        202: json(RunRecordSchema, "Started or queued"),
        400: json(ErrorSchema, "Invalid request"),
        401: json(ErrorSchema, "No or wrong token"),
        404: json(ErrorSchema, "No such session"),
        409: json(ErrorSchema, "The session has a run already"),
        429: json(ErrorSchema, "Too many run starts"),
      },
    }),
    async (c) => {
      const client = ctx.clientOf(c);
      if (!ctx.runStarts.take(client)) {
        c.header("Retry-After", String(ctx.runStarts.retryAfterSeconds(client)));
        return c.json(
          errorBody(
            "RATE_LIMITED",
            `More than ${ctx.limits.runStartsPerMinute} run starts a minute: try again later.`,
          ),
          429,
        );
      }
      const body = c.req.valid("json");
      const record = await ctx.runs.submit(
        "task" in body
          ? {
            task: body.task,
            ...(body.session_id ? { sessionId: body.session_id } : {}),
            ...(body.workspace ? { workspace: body.workspace } : {}),
            ...gitStart(body),
          }
          : {
            sessionId: body.session_id,
            ...(body.message !== undefined ? { message: body.message } : {}),
          },
      );
      return c.json(runJson(record), 202);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/runs",
      summary: "Every run this server knows, newest first",
      responses: {
        200: json(z.object({ runs: z.array(RunRecordSchema) }), "Runs"),
        401: json(ErrorSchema, "No or wrong token"),
      },
    }),
    (c) => c.json({ runs: ctx.runs.list().map(runJson) }, 200),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/runs/{key}",
      summary: "A run's state (queued with its reason, running, or how it ended)",
      request: { params: keyParam },
      responses: {
        200: json(RunRecordSchema, "The run"),
        400: json(ErrorSchema, "Invalid key"),
        401: json(ErrorSchema, "No or wrong token"),
        404: json(ErrorSchema, "No such run"),
      },
    }),
    (c) => {
      const record = ctx.runs.record(c.req.valid("param").key);
      if (!record) return c.json(errorBody("RUN_NOT_FOUND", "No such run."), 404);
      return c.json(runJson(record), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/runs/{key}/cancel",
      summary: "Cancel a queued or going run",
      request: { params: keyParam },
      responses: {
        202: json(RunRecordSchema, "Cancelled (a going run ends shortly)"),
        400: json(ErrorSchema, "Invalid key"),
        401: json(ErrorSchema, "No or wrong token"),
        404: json(ErrorSchema, "No such run"),
        409: json(ErrorSchema, "The run has ended"),
      },
    }),
    async (c) => {
      const { key } = c.req.valid("param");
      const record = ctx.runs.record(key);
      if (!record) return c.json(errorBody("RUN_NOT_FOUND", "No such run."), 404);
      if (!(await ctx.runs.cancel(key))) {
        return c.json(errorBody("RUN_ENDED", `The run ended already (${record.state}).`), 409);
      }
      return c.json(runJson(record), 202);
    },
  );
}
