/**
 * A serve app for tests (test helper): the runtime fixture's runtime with scripted models, the
 * server's runs and pending questions, and the app with a known token, driven by
 * `app.request()`; `start()` serves it on a free 127.0.0.1 port for WebSocket and browser tests.
 *
 * @module
 */
import { join } from "node:path";
import { createApp, type ServeDeps } from "../../src/serve/create_app.ts";
import { OperatorRequests } from "../../src/serve/operator_requests.ts";
import { ServeRuns } from "../../src/serve/serve_runs.ts";
import type { ServeApp } from "../../src/serve/create_app.ts";
import {
  type RuntimeFixture,
  runtimeFixture,
  type RuntimeFixtureOptions,
} from "../runtime/_runtime_fixture.ts";

/** The token of every fixture server. */
export const TEST_TOKEN = "t0ken-for-tests-0123456789abcdef";

/** A serve app and what it is made of. Dispose it to stop everything. */
export interface ServeFixture extends AsyncDisposable {
  f: RuntimeFixture;
  runs: ServeRuns;
  requests: OperatorRequests;
  app: ServeApp;
  /** `app.request` with the token, `Host: 127.0.0.1` and JSON bodies. */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** Serve on a free port of 127.0.0.1. @returns its origin, `http://127.0.0.1:<port>` */
  start(): Promise<string>;
  /** A workspace root the server allows. */
  root: string;
}

/** What a fixture is made with. */
export interface ServeFixtureOptions extends RuntimeFixtureOptions {
  deps?: Partial<ServeDeps>;
  maxConcurrentRuns?: number;
  /** Reuse this runtime fixture's ODEK_HOME (a restart). */
  recordsDir?: string;
}

/** Build it. */
export async function serveFixture(options: ServeFixtureOptions): Promise<ServeFixture> {
  const f = await runtimeFixture(options);
  const root = await f.workspace("roots");
  const requests = new OperatorRequests(f.runtime.redact);
  const runs = new ServeRuns({
    runtime: f.runtime,
    requests,
    workspaceRoots: [root],
    ...(options.maxConcurrentRuns ? { maxConcurrentRuns: options.maxConcurrentRuns } : {}),
    ...(options.recordsDir ? { recordsDir: options.recordsDir } : {}),
  });
  await runs.start();
  const allowedHosts = ["127.0.0.1", "localhost", "::1"];
  const deps: ServeDeps = {
    runtime: f.runtime,
    runs,
    requests,
    token: TEST_TOKEN,
    allowedHosts,
    version: "test",
    ...options.deps,
  };
  const app = createApp(deps);
  let server: Deno.HttpServer | undefined;
  return {
    f,
    runs,
    requests,
    app,
    root,
    call(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has("host")) headers.set("host", "127.0.0.1");
      if (!headers.has("authorization") && !headers.has("cookie")) {
        headers.set("authorization", `Bearer ${TEST_TOKEN}`);
      }
      let body = init.body;
      if (init.json !== undefined) {
        headers.set("content-type", "application/json");
        body = JSON.stringify(init.json);
      }
      return Promise.resolve(app.request(path, { ...init, headers, body }));
    },
    start() {
      return new Promise((resolve) => {
        server = Deno.serve({
          hostname: "127.0.0.1",
          port: 0,
          onListen: ({ port }) => resolve(`http://127.0.0.1:${port}`),
        }, (request, info) => app.fetch(request, info));
      });
    },
    async [Symbol.asyncDispose]() {
      try {
        await server?.shutdown();
        await runs[Symbol.asyncDispose]();
      } finally {
        await f[Symbol.asyncDispose]();
      }
    },
  };
}

/** Poll until `ok()` holds, failing after `ms`. */
export async function waitFor(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The JSON body of a response. */
export async function body<T = Record<string, unknown>>(response: Response): Promise<T> {
  return await response.json() as T;
}

/** Read an SSE body until `until(events)` holds or the stream ends; returns the run events. */
export async function readSse(
  response: Response,
  until: (events: { id?: string; event?: string; data: string }[]) => boolean = () => false,
): Promise<{ id?: string; event?: string; data: string }[]> {
  const events: { id?: string; event?: string; data: string }[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: { id?: string; event?: string; data: string } = { data: "" };
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) event.id = line.slice(4);
          else if (line.startsWith("event: ")) event.event = line.slice(7);
          else if (line.startsWith("data: ")) event.data += line.slice(6);
        }
        if (block.startsWith(":")) continue;
        events.push(event);
      }
      if (until(events)) break;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

/** A scratch path under the fixture's root. */
export function scratch(f: RuntimeFixture, name: string): string {
  return join(f.root, name);
}
