/**
 * The composition root of `odek serve` (conventions §3): the Hono app with its guards, the REST
 * API, the event streams, the WebSocket and the page. Every route is testable with
 * `app.request()`; `Deno.serve` only hands it requests.
 *
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getConnInfo } from "hono/deno";
import type { Runtime } from "../runtime/runtime.ts";
import { registerEventsApi } from "./api_events.ts";
import { registerOperatorApi } from "./api_operator.ts";
import { registerRunsApi } from "./api_runs.ts";
import { registerSessionsApi } from "./api_sessions.ts";
import { apiError } from "./api_error.ts";
import type { OperatorRequests } from "./operator_requests.ts";
import { RateLimiter } from "./rate_limiter.ts";
import { hostGuard, originGuard, securityHeaders, tokenGuard } from "./serve_guard.ts";
import type { ServeRuns } from "./serve_runs.ts";
import { registerPage } from "./serve_page.ts";
import { registerWebSocket } from "./serve_socket.ts";

/** The limits of one server; the defaults are the issue's numbers. */
export interface ServeLimits {
  /** Largest request body, in bytes. @default 1_048_576 */
  maxBodyBytes: number;
  /** Largest WebSocket message, in bytes. @default 262_144 */
  maxMessageBytes: number;
  /** WebSocket upgrades a minute per client. @default 30 */
  upgradesPerMinute: number;
  /** Run starts a minute per client. @default 10 */
  runStartsPerMinute: number;
}

/** The issue's default limits. */
export const DEFAULT_SERVE_LIMITS: ServeLimits = {
  maxBodyBytes: 1_048_576,
  maxMessageBytes: 262_144,
  upgradesPerMinute: 30,
  runStartsPerMinute: 10,
};

/** What the app is built from. */
export interface ServeDeps {
  runtime: Runtime;
  runs: ServeRuns;
  requests: OperatorRequests;
  /** The per-instance token. */
  token: string;
  /** Host names a request's `Host` may carry (the bound address, `localhost`, `--allowed-host`). */
  allowedHosts: readonly string[];
  /** @default {@linkcode DEFAULT_SERVE_LIMITS} */
  limits?: Partial<ServeLimits>;
  /** The version `GET /api/health` reports. */
  version: string;
  /** The folder of the page's files. @default `web/` of the runtime's `installDir` (the checkout) */
  webDir?: string;
  /** Milliseconds, for the rate limits. @default Date.now */
  now?: () => number;
}

/** What route modules share. */
export interface AppContext extends ServeDeps {
  limits: ServeLimits;
  upgrades: RateLimiter;
  runStarts: RateLimiter;
  clientOf(c: Context): string;
}

/** The app type: an OpenAPI-describing Hono app. */
export type ServeApp = OpenAPIHono;

/**
 * Build the server's app.
 *
 * @param deps the runtime, the runs, the pending questions, the token and the allowed hosts
 * @returns the Hono app (`app.fetch` for `Deno.serve`, `app.request` in tests)
 */
export function createApp(deps: ServeDeps): ServeApp {
  const limits = { ...DEFAULT_SERVE_LIMITS, ...deps.limits };
  const context: AppContext = {
    ...deps,
    limits,
    upgrades: new RateLimiter(limits.upgradesPerMinute, 60_000, deps.now),
    runStarts: new RateLimiter(limits.runStartsPerMinute, 60_000, deps.now),
    clientOf: clientOf,
  };
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issues = result.error.issues.slice(0, 5).map((issue) =>
        `${issue.path.join(".") || "(body)"}: ${issue.message}`
      );
      return c.json({
        error: { code: "BAD_REQUEST", message: `The request is invalid: ${issues.join("; ")}` },
      }, 400);
    },
  });
  app.use("*", securityHeaders());
  app.use("*", hostGuard(deps));
  app.use("*", originGuard(deps));
  app.use(
    "*",
    bodyLimit({
      maxSize: limits.maxBodyBytes,
      onError: (c) =>
        c.json({
          error: {
            code: "BODY_TOO_LARGE",
            message: `The request body is over ${limits.maxBodyBytes} bytes.`,
          },
        }, 413),
    }),
  );
  app.use("/api/*", tokenGuard(deps));
  app.use("/ws", tokenGuard(deps));
  app.onError((error, c) => apiError(c, error));
  app.notFound((c) =>
    c.json(
      { error: { code: "NOT_FOUND", message: `No route ${c.req.method} ${c.req.path}.` } },
      404,
    )
  );
  registerSessionsApi(app, context);
  registerRunsApi(app, context);
  registerOperatorApi(app, context);
  registerEventsApi(app, context);
  registerWebSocket(app, context);
  app.doc31("/api/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "odek serve",
      version: deps.version,
      description:
        "odek's REST API: sessions, runs, their events (Server-Sent Events), pending approvals and clarifications. Every route needs the instance's token (cookie or Authorization: Bearer).",
    },
  });
  registerPage(app, context);
  return app;
}

function clientOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "local";
  }
}
