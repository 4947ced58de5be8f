/**
 * The event streams as Server-Sent Events (design §8.2): one run's (`/api/runs/{id}/events`) and
 * every run's (`/api/events`). Each event's SSE id is its `<run>:<seq>`, so a client that
 * reconnects with `Last-Event-ID` (or `?after=`) gets what it missed, without duplicates:
 * replayed from memory while the server lives, from serve's event files after a restart.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { RuntimeEvent } from "../runtime/event_subscription.ts";
import { errorBody } from "./api_error.ts";
import { pendingJson } from "./api_json.ts";
import { ErrorSchema, EventsQuerySchema, RunKeySchema } from "./api_schemas.ts";
import type { AppContext } from "./create_app.ts";

/** Milliseconds between keep-alive comments on an idle stream. */
const HEARTBEAT_MS = 15_000;

const sse = (description: string) => ({
  content: { "text/event-stream": { schema: z.string() } },
  description,
});

const runEventsRoute = createRoute({
  method: "get",
  path: "/api/runs/{id}/events",
  summary:
    "A run's events (SSE; id <run>:<seq>); resumes after Last-Event-ID or ?after=<seq>, ends with the run",
  request: {
    params: z.object({ id: RunKeySchema }),
    query: EventsQuerySchema,
  },
  responses: {
    200: sse("The events"),
    400: { content: { "application/json": { schema: ErrorSchema } }, description: "Bad id" },
    401: { content: { "application/json": { schema: ErrorSchema } }, description: "No token" },
    404: { content: { "application/json": { schema: ErrorSchema } }, description: "No such run" },
  },
});

const allEventsRoute = createRoute({
  method: "get",
  path: "/api/events",
  summary:
    "Every run's events from now on (SSE), and `request` events when a question is asked or settled; resumes after Last-Event-ID",
  request: { query: EventsQuerySchema },
  responses: {
    200: sse("The events"),
    401: { content: { "application/json": { schema: ErrorSchema } }, description: "No token" },
  },
});

/** Register the event streams (described in the OpenAPI document, served as SSE). */
export function registerEventsApi(app: OpenAPIHono, ctx: AppContext): void {
  app.openAPIRegistry.registerPath(runEventsRoute);
  app.openAPIRegistry.registerPath(allEventsRoute);

  app.get("/api/runs/:id/events", async (c) => {
    const id = c.req.param("id");
    if (!RunKeySchema.safeParse(id).success) {
      return c.json(
        errorBody("BAD_REQUEST", "A run id is 32 hex digits (a queued run's: q-<uuid>)."),
        400,
      );
    }
    const after = seqAfter(c, id);
    const run = ctx.runs.run(id);
    if (run) {
      const subscription = run.subscribe({ after });
      return stream(c, async (s) => {
        s.onAbort(() => subscription.close());
        for await (const event of subscription) await writeEvent(s, event);
      });
    }
    // A queued run's events come from the queue (any serve's run, replayed and live).
    const stop = new AbortController();
    const known = ctx.runs.record(id) !== undefined;
    const remote = await ctx.runs.remote?.events(id, after, stop.signal, known);
    if (remote) {
      return stream(c, async (s) => {
        s.onAbort(() => stop.abort());
        for await (const event of remote) await writeEvent(s, event);
      });
    }
    const stored = await ctx.runs.storedEvents(id, after);
    if (!stored) return c.json(errorBody("RUN_NOT_FOUND", `No run ${id}.`), 404);
    return stream(c, async (s) => {
      for (const event of stored) await writeEvent(s, event);
    });
  });

  app.get("/api/events", (c) => {
    const afterId = c.req.header("last-event-id") ?? c.req.query("after");
    const { subscription, resumed } = ctx.runs.events.subscribe(afterId || undefined);
    return stream(c, async (s) => {
      const stop = ctx.requests.onChange((change) => {
        void s.writeSSE({
          event: "request",
          data: JSON.stringify({ change: change.type, request: pendingJson(change.request) }),
        }).catch(() => {});
      });
      s.onAbort(() => {
        stop();
        subscription.close();
      });
      await s.writeSSE({
        event: "hello",
        data: JSON.stringify({
          resumed,
          pending: ctx.requests.list().map(pendingJson),
        }),
      });
      try {
        for await (const event of subscription) await writeEvent(s, event);
      } finally {
        stop();
      }
    });
  });
}

/** The `seq` to resume after: `?after=<seq>` or a `Last-Event-ID` of this run. */
function seqAfter(c: Context, runId: string): number {
  const raw = c.req.header("last-event-id") ?? c.req.query("after") ?? "0";
  const [run, seq] = raw.includes(":") ? raw.split(":", 2) : [runId, raw];
  const n = Number(seq);
  return run === runId && Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

function writeEvent(s: SSEStreamingApi, event: RuntimeEvent): Promise<void> {
  return s.writeSSE({ id: event.id, event: "run_event", data: JSON.stringify(event) });
}

function stream(c: Context, body: (s: SSEStreamingApi) => Promise<void>): Response {
  c.header("Cache-Control", "no-store");
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (s) => {
    const beat = setInterval(() => void s.write(": keep-alive\n\n").catch(() => {}), HEARTBEAT_MS);
    try {
      await body(s);
    } finally {
      clearInterval(beat);
    }
  });
}
