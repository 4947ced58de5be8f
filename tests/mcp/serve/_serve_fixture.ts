/**
 * `odek mcp serve` as a real process for tests (test helper): a private HOME/ODEK_HOME (the
 * e2e fixture), the fake OpenAI-compatible server on 127.0.0.1 as the model, and the SDK's own
 * client over stdio, or the HTTP endpoint read from the server's stderr.
 *
 * @module
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
} from "../../../src/testing/fake_openai_server.ts";
import { ODEK_FLAGS, type OdekFixture, odekFixture, ROOT } from "../../e2e/_odek.ts";

/** A server process and what it runs against. */
export interface ServeFixture extends AsyncDisposable {
  fx: OdekFixture;
  model: FakeOpenAIServer;
  /** odek's dedicated workspace (where tasks and direct calls work). */
  dedicated: string;
  /** The environment the server runs with. */
  env: Record<string, string>;
}

/** The odek command line of `odek mcp serve` (argv after the deno binary). */
export function serveArgs(extra: string[] = []): string[] {
  return [...ODEK_FLAGS, join(ROOT, "main.ts"), "mcp", "serve", ...extra];
}

/** Build the fixture: the model answers with `turns`. */
export async function serveFixture(
  turns: FakeOpenAIServerOptions["turns"],
  config: Record<string, unknown> = {},
): Promise<ServeFixture> {
  const fx = await odekFixture();
  const model = await startFakeOpenAIServer({ turns });
  await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), JSON.stringify(config));
  const env = { ...fx.env, ODEK_BASE_URL: model.url, ODEK_API_KEY: "sk-test-serve" };
  return {
    fx,
    model,
    dedicated: `${fx.odekHome}-workspace`,
    env,
    async [Symbol.asyncDispose]() {
      await model.close();
      await fx[Symbol.asyncDispose]();
    },
  };
}

/** The SDK's client connected to `odek mcp serve` over stdio. */
export async function stdioClient(
  f: ServeFixture,
  capabilities: Record<string, unknown> = {},
): Promise<Client & AsyncDisposable> {
  const client = new Client({ name: "odek-serve-test", version: "1.0.0" }, { capabilities });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: serveArgs(),
    env: f.env,
    cwd: f.fx.workspace,
    stderr: "pipe",
  });
  await client.connect(transport);
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/** A running `odek mcp serve --http` process and its endpoints. */
export interface HttpServe extends AsyncDisposable {
  child: Deno.ChildProcess;
  /** `http://127.0.0.1:PORT/<token>/mcp` */
  tokenUrl: string;
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  token: string;
  port: number;
}

/** The library entry serving with the conformance fixture tools added. */
export const CONFORMANCE_SERVER: string = join(ROOT, "tests/mcp/serve/_conformance_server.ts");

/**
 * Start `odek mcp serve --http 127.0.0.1:0` (or, with `script`, that entry with the same flags)
 * and wait for the URL it prints.
 */
export async function httpServe(
  f: ServeFixture,
  extra: string[] = [],
  script?: string,
): Promise<HttpServe> {
  const child = new Deno.Command(Deno.execPath(), {
    args: script ? [...ODEK_FLAGS, script] : serveArgs(["--http", "127.0.0.1:0", ...extra]),
    env: f.env,
    clearEnv: true,
    cwd: f.fx.workspace,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = Date.now() + 60_000;
  let match: RegExpExecArray | null = null;
  while (!match && Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    match = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/([A-Za-z0-9_-]+)\/mcp)/.exec(text);
  }
  // Keep draining stderr so the server never blocks on a full pipe.
  void (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  if (!match) {
    child.kill("SIGTERM");
    await child.status;
    throw new Error(`odek mcp serve --http printed no URL:\n${text}`);
  }
  const port = Number(match[2]);
  return {
    child,
    tokenUrl: match[1],
    url: `http://127.0.0.1:${port}/mcp`,
    token: match[3],
    port,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}
