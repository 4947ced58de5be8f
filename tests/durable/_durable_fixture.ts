/**
 * Durable runs end to end (test helper): a throw-away PostgreSQL, the fake model answering every
 * run by its task, `odek worker` processes, and a queue client.
 *
 * Each run's task is `task <name>`; the model answers its first turn with one shell call
 * (`command` below) and, once the call's result is in the history, with `done <name>` — or, when
 * `next` gives one, with another call.
 *
 * @module
 */
import { join } from "node:path";
import { QueueClient } from "../../src/durable/queue_client.ts";
import { queueDispatch } from "../../src/durable/queue_dispatch.ts";
import { queueRemote } from "../../src/durable/queue_remote.ts";
import { createRuntime } from "../../src/runtime/create_runtime.ts";
import { createApp, DEFAULT_SERVE_LIMITS } from "../../src/serve/create_app.ts";
import { OperatorRequests } from "../../src/serve/operator_requests.ts";
import { ServeRuns } from "../../src/serve/serve_runs.ts";
import {
  type FakeOpenAIServer,
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";
import { ODEK_FLAGS, ROOT } from "../e2e/_odek.ts";
import { findPostgres, startTestPostgres, type TestPostgres } from "./_postgres.ts";
import { bareRepository } from "./_git_repository.ts";

/** Why durable tests cannot run here, or undefined. Printed by the tests that skip. */
export function postgresMissing(): string | undefined {
  const found = findPostgres();
  return "missing" in found ? found.missing : undefined;
}

/** The task's name in a request (the first user message is `task <name>`). */
export function taskOf(request: RecordedRequest): string {
  const user = (request.body.messages as { role: string; content: string }[])
    .find((m) => m.role === "user");
  return (user?.content ?? "").replace(/^task /, "");
}

/** A layout for durable tests. */
export interface DurableFixture extends AsyncDisposable {
  root: string;
  postgres: TestPostgres;
  url: string;
  model: FakeOpenAIServer;
  queue: QueueClient;
  /** Start a worker process with this id. */
  worker(id: string, flags?: string[]): Deno.ChildProcess;
  /** What the workers wrote to stderr, prefixed by their ids. */
  logs: string[];
  /**
   * Serve's REST API on the queue (in this process, `odek serve --queue`'s wiring): a request
   * with the token and Host set; JSON bodies; more headers. Each `name` is a serve of its own.
   */
  serve(
    name?: string,
  ): Promise<(path: string, json?: unknown, headers?: Record<string, string>) => Promise<Response>>;
  /** Stop every serve started so far (as a server that stops: its records stay). */
  stopServes(): Promise<void>;
  /** A new workspace directory. */
  workspace(name: string): Promise<string>;
  /** A new bare repository `<root>/<name>.git` whose `main` holds `files`. */
  repository(name: string, files: Record<string, string>): Promise<string>;
}

/**
 * Build the layout.
 *
 * @param command the shell command of a task's first tool call
 * @param next the command of the call after `done` results are in (`done` ≥ 1), or undefined for
 *   the final answer @default always the final answer
 */
export async function durableFixture(
  command: (task: string) => string,
  next: (task: string, done: number) => string | undefined = () => undefined,
): Promise<DurableFixture> {
  const found = findPostgres();
  if ("missing" in found) throw new Error(found.missing);
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-durable-" }),
  );
  const postgres = await startTestPostgres(found.bin);
  const url = await postgres.database("odek");
  const model = await startFakeOpenAIServer({
    idleTimeoutMs: 600_000,
    turns: (request) => {
      const task = taskOf(request);
      const done = (request.body.messages as { role: string }[]).filter((m) => m.role === "tool")
        .length;
      const more = done === 0 ? command(task) : next(task, done);
      if (more === undefined) return { text: `done ${task}` };
      const id = done === 0 ? `call-${task}` : `call-${task}-${done}`;
      return { toolCalls: [{ id, name: "shell", arguments: { command: more } }] };
    },
  });
  const queue = await QueueClient.connect(url);
  const children: Deno.ChildProcess[] = [];
  const closers: (() => Promise<void>)[] = [];
  const logs: string[] = [];
  return {
    root,
    postgres,
    url,
    model,
    queue,
    logs,
    worker(id, flags = []) {
      const home = join(root, `home-${id}`);
      Deno.mkdirSync(join(home, ".odek"), { recursive: true });
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          ...ODEK_FLAGS,
          join(ROOT, "main.ts"),
          "worker",
          "--queue",
          url,
          "--worker-id",
          id,
          ...flags,
        ],
        clearEnv: true,
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: home,
          ODEK_HOME: join(home, ".odek"),
          DENO_DIR: Deno.env.get("DENO_DIR") ??
            join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
          NO_COLOR: "1",
          ODEK_BASE_URL: model.url,
          ODEK_API_KEY: "test-key",
          ODEK_SANDBOX: "none",
          ODEK_TRUST_LEVEL: "trusted",
          ODEK_CHECKPOINTS: "false",
          ODEK_ALLOW_DOMAINS: "localhost",
        },
        cwd: root,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
      children.push(child);
      void child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
        new WritableStream({ write: (text) => void logs.push(`[${id}] ${text}`) }),
      ).catch(() => {});
      return child;
    },
    async serve(name = "serve") {
      const home = join(root, `${name}-home`);
      await Deno.mkdir(join(home, ".odek"), { recursive: true });
      await Deno.mkdir(join(root, "ws"), { recursive: true });
      const runtime = await createRuntime({
        env: {
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          HOME: home,
          ODEK_HOME: join(home, ".odek"),
        },
        store: queue.sessions,
      });
      const requests = new OperatorRequests(runtime.redact);
      const runs = new ServeRuns({
        runtime,
        requests,
        dispatch: queueDispatch(queue),
        remote: queueRemote(queue),
        maxConcurrentRuns: 1000,
        workspaceRoots: [join(root, "ws")],
      });
      await runs.start();
      closers.push(async () => {
        await runs[Symbol.asyncDispose]();
        await runtime[Symbol.asyncDispose]();
      });
      const token = "durable-test-token-0123456789abcdef";
      const app = createApp({
        runtime,
        runs,
        requests,
        token,
        allowedHosts: ["127.0.0.1"],
        limits: { ...DEFAULT_SERVE_LIMITS, runStartsPerMinute: 1000 },
        version: "test",
      });
      return (path, json, headers = {}) =>
        Promise.resolve(app.request(path, {
          method: json === undefined ? "GET" : "POST",
          headers: {
            ...headers,
            host: "127.0.0.1",
            authorization: `Bearer ${token}`,
            ...(json === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        }));
    },
    async stopServes() {
      for (const close of closers.splice(0)) await close();
    },
    async workspace(name) {
      const dir = join(root, "ws", name);
      await Deno.mkdir(dir, { recursive: true });
      return dir;
    },
    repository: (name, files) => bareRepository(root, name, files),
    async [Symbol.asyncDispose]() {
      for (const close of closers) await close().catch(() => {});
      for (const child of children) {
        try {
          child.kill("SIGKILL");
        } catch {
          // Already gone.
        }
        await child.status;
      }
      await queue[Symbol.asyncDispose]().catch(() => {});
      await model[Symbol.asyncDispose]();
      await postgres[Symbol.asyncDispose]();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** Poll `probe` until it returns a value, or fail after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
