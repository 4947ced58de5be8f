/**
 * `/ws`: the page's live connection. The server sends every run's events (`{ type: "event",
 * event }`, resumable with `?after=<run>:<seq>`), the questions being asked and settled
 * (`{ type: "request" }`) and a `hello` with what is pending; the client answers approvals and
 * clarifications and cancels runs. Upgrades are rate-limited per client and messages size-capped.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { upgradeWebSocket } from "hono/deno";
import type { WSContext } from "hono/ws";
import { z } from "zod";
import { errorBody } from "./api_error.ts";
import { pendingJson } from "./api_json.ts";
import type { AppContext } from "./create_app.ts";

const ClientMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("approval_response"),
    id: z.string().max(64),
    decisions: z.array(z.strictObject({
      call_id: z.string().min(1).max(256),
      approved: z.boolean(),
      scope: z.enum(["once", "class"]).optional(),
      reason: z.string().max(4096).optional(),
    })).min(1).max(256),
  }),
  z.strictObject({
    type: z.literal("clarification_response"),
    id: z.string().max(64),
    answer: z.string().min(1).max(65_536).optional(),
    declined: z.string().min(1).max(4096).optional(),
  }),
  z.strictObject({ type: z.literal("cancel"), key: z.string().max(64) }),
  z.strictObject({ type: z.literal("ping") }),
]);

/** Register the upgrade route. */
export function registerWebSocket(app: OpenAPIHono, ctx: AppContext): void {
  app.get(
    "/ws",
    async (c, next) => {
      const client = ctx.clientOf(c);
      if (!ctx.upgrades.take(client)) {
        c.header("Retry-After", String(ctx.upgrades.retryAfterSeconds(client)));
        return c.json(
          errorBody(
            "RATE_LIMITED",
            `More than ${ctx.limits.upgradesPerMinute} WebSocket upgrades a minute from ${client}.`,
          ),
          429,
        );
      }
      return await next();
    },
    upgradeWebSocket((c) => {
      const afterId = c.req.query("after") || undefined;
      let stop = () => {};
      return {
        onOpen: (_event, ws) => {
          const { subscription, resumed } = ctx.runs.events.subscribe(afterId);
          const unlisten = ctx.requests.onChange((change) =>
            send(ws, { type: "request", change: change.type, request: pendingJson(change.request) })
          );
          stop = () => {
            unlisten();
            subscription.close();
          };
          send(ws, { type: "hello", resumed, pending: ctx.requests.list().map(pendingJson) });
          void (async () => {
            for await (const event of subscription) send(ws, { type: "event", event });
          })();
        },
        onMessage: (event, ws) => {
          const size = typeof event.data === "string"
            ? new TextEncoder().encode(event.data).length
            : event.data instanceof Blob
            ? event.data.size
            : event.data.byteLength;
          if (size > ctx.limits.maxMessageBytes) {
            ws.close(1009, `messages are capped at ${ctx.limits.maxMessageBytes} bytes`);
            return;
          }
          if (typeof event.data !== "string") {
            send(ws, { type: "error", message: "send JSON text messages" });
            return;
          }
          let parsed;
          try {
            parsed = ClientMessageSchema.safeParse(JSON.parse(event.data));
          } catch {
            send(ws, { type: "error", message: "the message is not JSON" });
            return;
          }
          if (!parsed.success) {
            send(ws, {
              type: "error",
              message: `invalid message: ${parsed.error.issues[0]?.message}`,
            });
            return;
          }
          void handle(ctx, ws, parsed.data);
        },
        onClose: () => stop(),
        onError: () => stop(),
      };
    }),
  );
}

async function handle(
  ctx: AppContext,
  ws: WSContext,
  message: z.infer<typeof ClientMessageSchema>,
): Promise<void> {
  switch (message.type) {
    case "ping":
      send(ws, { type: "pong" });
      return;
    case "cancel":
      send(ws, { type: "ack", of: "cancel", ok: await ctx.runs.cancel(message.key) });
      return;
    case "approval_response": {
      const pending = ctx.requests.get(message.id);
      const known = pending?.type === "approval"
        ? new Set(pending.calls.map((call) => call.callId))
        : undefined;
      const ok = known !== undefined && message.decisions.every((d) => known.has(d.call_id)) &&
        ctx.requests.answer(message.id, {
          decisions: message.decisions.map((d) => ({
            callId: d.call_id,
            approved: d.approved,
            ...(d.scope ? { scope: d.scope } : {}),
            ...(d.reason !== undefined ? { reason: d.reason } : {}),
          })),
        });
      // A queued run's answer is acknowledged once its continuation is on the queue.
      const delivered = ok &&
        await ctx.requests.delivered(message.id).then(() => true, () => false);
      send(ws, { type: "ack", of: message.id, ok: delivered });
      return;
    }
    case "clarification_response": {
      const reply = message.answer !== undefined
        ? { answer: message.answer }
        : { declined: message.declined ?? "the operator declined" };
      const ok = ctx.requests.get(message.id)?.type === "clarification" &&
        ctx.requests.answer(message.id, reply);
      send(ws, { type: "ack", of: message.id, ok });
      return;
    }
    default: {
      const unreachable: never = message;
      throw new TypeError(`Unknown message: ${JSON.stringify(unreachable)}`);
    }
  }
}

function send(ws: WSContext, message: unknown): void {
  if (ws.readyState !== 1) return;
  try {
    ws.send(JSON.stringify(message));
  } catch {
    // the socket closed under us: its onClose stops the feed
  }
}
