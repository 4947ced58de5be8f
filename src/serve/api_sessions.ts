/**
 * `/api/sessions`: list (search, pagination), show, export, delete, rewind, and the usage of
 * the runs this server ran.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { OdekError } from "../_util/odek_error.ts";
import { errorBody } from "./api_error.ts";
import { pendingJson, runJson } from "./api_json.ts";
import {
  ErrorSchema,
  RewindBodySchema,
  SessionIdSchema,
  SessionQuerySchema,
  SessionRowSchema,
  SessionSchema,
  UsageSchema,
} from "./api_schemas.ts";
import type { AppContext } from "./create_app.ts";
import type { ServeRunRecord } from "./run_records.ts";

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const errors = {
  400: json(ErrorSchema, "Invalid request"),
  401: json(ErrorSchema, "No or wrong token"),
  404: json(ErrorSchema, "No such session"),
  409: json(ErrorSchema, "The session is busy"),
};
const idParam = z.object({ id: SessionIdSchema });

/** Register the session routes. */
export function registerSessionsApi(app: OpenAPIHono, ctx: AppContext): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/api/health",
      summary: "Whether the server is up, and its runs",
      responses: {
        200: json(
          z.object({
            ok: z.boolean(),
            version: z.string(),
            running: z.number(),
            queued: z.number(),
          }),
          "Up",
        ),
        401: errors[401],
      },
    }),
    (c) => {
      const records = ctx.runs.list();
      return c.json({
        ok: true,
        version: ctx.version,
        running: records.filter((r) => r.state === "running").length,
        queued: records.filter((r) => r.state === "queued").length,
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions",
      summary: "Sessions, newest first; q searches id, title and workspace",
      request: { query: SessionQuerySchema },
      responses: {
        200: json(z.object({ sessions: z.array(SessionRowSchema), total: z.number() }), "Sessions"),
        400: errors[400],
        401: errors[401],
      },
    }),
    async (c) => {
      const { q, limit = 50, offset = 0 } = c.req.valid("query");
      const needle = q?.trim().toLowerCase();
      const rows = (await ctx.runtime.sessions.list())
        .filter((row) =>
          !needle ||
          [row.id, row.title, row.workspace].some((field) => field.toLowerCase().includes(needle))
        )
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      return c.json({
        total: rows.length,
        sessions: rows.slice(offset, offset + limit).map((row) => {
          const run = ctx.runs.current(row.id) ?? latestRun(ctx, row.id);
          return {
            id: row.id,
            title: row.title,
            workspace: row.workspace,
            model: row.model,
            created_at: row.createdAt,
            updated_at: row.updatedAt,
            message_count: row.messageCount,
            locked: row.locked,
            ...(row.problem ? { problem: row.problem } : {}),
            ...(run ? { run: runJson(run) } : {}),
          };
        }),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{id}",
      summary: "A session: its transcript, its runs and what it waits on",
      request: { params: idParam },
      responses: { 200: json(SessionSchema, "The session"), ...errors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { meta, transcript } = await ctx.runtime.sessions.read(id);
      const run = ctx.runs.current(id);
      return c.json({
        id: meta.id,
        title: meta.title,
        workspace: meta.workspace,
        model: meta.model,
        base_url: meta.baseUrl,
        created_at: meta.createdAt,
        messages: transcript.map((m) => ({ ...m })),
        ...(run ? { run: runJson(run) } : {}),
        runs: runsOf(ctx, id).map(runJson),
        pending: ctx.requests.list(id).map(pendingJson),
      }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/sessions/{id}/export",
      summary: "Download a session's journal as JSON",
      request: { params: idParam },
      responses: { 200: json(z.unknown(), "The session's records"), ...errors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const records = await ctx.runtime.sessions.read(id);
      c.header("Content-Disposition", `attachment; filename="odek-session-${id}.json"`);
      return c.json(records as unknown as Record<string, unknown>, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/api/sessions/{id}",
      summary: "Delete a session (not while a run of it is queued or going)",
      request: { params: idParam },
      responses: { 204: { description: "Deleted" }, ...errors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (ctx.runs.current(id)) return c.json(errorBody("SESSION_BUSY", busy(id)), 409);
      await ctx.runtime.sessions.read(id); // 404 for a session that does not exist
      await ctx.runtime.sessions.delete(id);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/api/sessions/{id}/rewind",
      summary: "Take a session back to before a turn (default: the last): files and conversation",
      request: {
        params: idParam,
        body: { content: { "application/json": { schema: RewindBodySchema } }, required: true },
      },
      responses: { 200: json(z.unknown(), "What the rewind did"), ...errors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      if (ctx.runs.current(id)) return c.json(errorBody("SESSION_BUSY", busy(id)), 409);
      const answer = body.on_conflict ?? "cancel";
      const outcome = await ctx.runtime.rewind(id, {
        ...(body.turn !== undefined ? { turn: body.turn } : {}),
        ...(body.files !== undefined ? { files: body.files } : {}),
        ...(body.conversation !== undefined ? { conversation: body.conversation } : {}),
        onConflict: () => Promise.resolve(answer),
      });
      return c.json(JSON.parse(JSON.stringify(outcome)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/api/usage",
      summary: "Tokens and cost of the runs this server ran, per session and in total",
      responses: {
        200: json(
          z.object({ total: UsageSchema, sessions: z.record(z.string(), UsageSchema) }),
          "Usage",
        ),
        401: errors[401],
      },
    }),
    (c) => {
      const sessions: Record<string, Usage> = {};
      const total: Usage = { input_tokens: 0, output_tokens: 0, tool_calls: 0, cost_usd: 0 };
      for (const record of ctx.runs.list()) {
        if (!record.usage) continue;
        const row = sessions[record.sessionId] ??= {
          input_tokens: 0,
          output_tokens: 0,
          tool_calls: 0,
          cost_usd: 0,
        };
        const cost = costOf(ctx, record);
        for (const target of [row, total]) {
          target.input_tokens += record.usage.inputTokens;
          target.output_tokens += record.usage.outputTokens;
          target.tool_calls += record.usage.toolCalls;
          target.cost_usd += cost;
        }
      }
      return c.json({ total, sessions }, 200);
    },
  );
}

interface Usage {
  input_tokens: number;
  output_tokens: number;
  tool_calls: number;
  cost_usd: number;
}

function costOf(ctx: AppContext, record: ServeRunRecord): number {
  const facts = record.model && Object.hasOwn(ctx.runtime.config.models, record.model)
    ? ctx.runtime.config.models[record.model]
    : undefined;
  if (!record.usage || !facts) return 0;
  return (record.usage.inputTokens * (facts.inputCostPerMillionUsd ?? 0) +
    record.usage.outputTokens * (facts.outputCostPerMillionUsd ?? 0)) / 1e6;
}

function runsOf(ctx: AppContext, sessionId: string): ServeRunRecord[] {
  return ctx.runs.list().filter((r) => r.sessionId === sessionId);
}

function latestRun(ctx: AppContext, sessionId: string): ServeRunRecord | undefined {
  return runsOf(ctx, sessionId)[0];
}

function busy(id: string): string {
  return new OdekError(
    "SESSION_BUSY",
    `Session ${id} has a run queued or going: cancel it first (POST /api/runs/<key>/cancel).`,
  ).message;
}
