/**
 * `odek serve` (issue 20): a REST API, Server-Sent Events, a WebSocket and a web page over the
 * runtime layer, on Hono; see docs/serve.md.
 *
 * @module
 */
export { createApp, DEFAULT_SERVE_LIMITS, type ServeDeps, type ServeLimits } from "./create_app.ts";
export { ServeRuns, type ServeRunsOptions } from "./serve_runs.ts";
export { OperatorRequests } from "./operator_requests.ts";
