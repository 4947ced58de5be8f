/**
 * Start `odek serve` on a runtime: the runs (resuming what a stopped server left), the app, and
 * `Deno.serve` on the address, with a fresh per-instance token.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { ToolProviderSource } from "../runtime/tool_provider_source.ts";
import { createApp, type ServeLimits } from "./create_app.ts";
import { OperatorRequests } from "./operator_requests.ts";
import { ServeRuns } from "./serve_runs.ts";
import type { ServeRunDispatch } from "./serve_dispatch.ts";
import type { RemoteRuns } from "./remote_runs.ts";

/** Options of {@linkcode startServer}. */
export interface StartServerOptions {
  /** The address to bind. @default "127.0.0.1" */
  hostname?: string;
  /** The port (0: any free one). @default 8080 */
  port?: number;
  /** Allow a non-loopback `hostname`. @default false */
  allowRemote?: boolean;
  /** Names a request's `Host` may carry besides the bound loopback names (`--allowed-host`). */
  allowedHosts?: readonly string[];
  /** Runs going at once. @default 4 */
  maxConcurrentRuns?: number;
  /** Roots a session's named workspace must lie under. */
  workspaceRoots?: readonly string[];
  /** Tools every host offers (the configured MCP servers). */
  tools?: readonly ToolProviderSource[];
  /** Hand every run to this instead of running it here (`odek serve --queue`). @default none */
  dispatch?: ServeRunDispatch;
  /** The queue's events, approvals and cancel (with `dispatch`). @default none */
  remote?: RemoteRuns;
  limits?: Partial<ServeLimits>;
  version: string;
  /** The token. @default 32 random bytes as hex */
  token?: string;
}

/** A running server. Dispose it to stop it (runs still going are resumed by the next one). */
export interface RunningServer extends AsyncDisposable {
  /** The URL with the token to open once, e.g. `http://127.0.0.1:8080/?token=…`. */
  url: string;
  /** The origin, without the token. */
  origin: string;
  /** Warnings to print (a non-loopback bind). */
  warnings: string[];
  runs: ServeRuns;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
}

/** Whether an address is a loopback one. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * Start serving.
 *
 * @throws {OdekError} `USAGE` for a non-loopback address without `allowRemote` and an allowed
 *   host name; the bind's error (`AddrInUse`) as it is
 */
export async function startServer(
  runtime: Runtime,
  options: StartServerOptions,
): Promise<RunningServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const loopback = isLoopback(hostname);
  const warnings: string[] = [];
  if (!loopback) {
    if (!options.allowRemote || (options.allowedHosts ?? []).length === 0) {
      throw new OdekError(
        "USAGE",
        `Binding ${hostname} would expose odek beyond this machine: pass --allow-remote and --allowed-host <name> (the name clients use), or bind 127.0.0.1.`,
      );
    }
    warnings.push(
      `odek serve listens on ${hostname}, beyond this machine: anyone with the token can run tools in your workspaces. Put TLS in front (docs/serve.md, reverse proxies).`,
    );
  }
  const token = options.token ?? hex(32);
  const requests = new OperatorRequests(runtime.redact);
  const runs = new ServeRuns({
    runtime,
    requests,
    ...(options.maxConcurrentRuns ? { maxConcurrentRuns: options.maxConcurrentRuns } : {}),
    ...(options.workspaceRoots ? { workspaceRoots: options.workspaceRoots } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.dispatch ? { dispatch: options.dispatch } : {}),
    ...(options.remote ? { remote: options.remote } : {}),
  });
  await runs.start();
  const bare = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const allowedHosts = [
    bare,
    ...(loopback ? ["localhost", "127.0.0.1", "::1"] : []),
    ...(options.allowedHosts ?? []).map((h) => h.toLowerCase()),
  ];
  const app = createApp({
    runtime,
    runs,
    requests,
    token,
    allowedHosts,
    version: options.version,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const listening = Promise.withResolvers<number>();
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname,
      port: options.port ?? 8080,
      onListen: ({ port }) => listening.resolve(port),
    }, (request, info) => app.fetch(request, info));
  } catch (error) {
    await runs[Symbol.asyncDispose]();
    throw error;
  }
  const port = await listening.promise;
  const host = bare.includes(":") ? `[${bare}]` : bare;
  const origin = `http://${host}:${port}`;
  let stopping: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    warnings,
    runs,
    finished: server.finished,
    [Symbol.asyncDispose]() {
      stopping ??= (async () => {
        await runs[Symbol.asyncDispose]();
        await server.shutdown();
      })();
      return stopping;
    },
  };
}

function hex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
