/**
 * MCP test helper: a runtime fixture whose hosts get the MCP servers a test configures, a
 * per-test marker file and token (process markers are per instance), an approver that approves
 * and records every ask, and helpers to read the transcript and the process table.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApprovalRequest, Approver } from "../../src/approval/approver.ts";
import { type Clarifier, NoOperatorClarifier } from "../../src/approval/clarifier.ts";
import type { McpServerConfig } from "../../src/config/mcp_server_config.ts";
import { mcpTools, type McpToolsOptions } from "../../src/mcp/mcp_tools.ts";
import type { SessionHost } from "../../src/runtime/session_host.ts";
import type { ScriptedModelTurns } from "../../src/testing/scripted_model.ts";
import { type RuntimeFixture, runtimeFixture } from "../runtime/_runtime_fixture.ts";

/** The hostile fixture server. */
export const HOSTILE_SERVER: string = fileURLToPath(
  new URL("./fixtures/hostile_server.mjs", import.meta.url),
);
/** The fixtures folder (bound read-only into a server's sandbox: it is inside odek's install dir). */
export const FIXTURES_DIR: string = fileURLToPath(new URL("./fixtures", import.meta.url));

/** A fixture for MCP tests. */
export interface McpFixture extends AsyncDisposable {
  f: RuntimeFixture;
  workspace: string;
  /** A file the fixture server appends what it did to. */
  marker: string;
  /** A random token the fixture server's processes carry in their argv. */
  token: string;
  /** Warnings the MCP provider gave. */
  warnings: string[];
  /** Every approval batch asked. */
  asked: ApprovalRequest[];
  /** Open a host for `task` (its approver: approve and record every ask, unless given). */
  open(
    task: string,
    options?: { clarifier?: Clarifier; approver?: Approver; trust?: "untrusted" | "standard" },
  ): Promise<SessionHost>;
  /** The tool results of a session, in order. */
  results(host: SessionHost): Promise<string[]>;
  /** The marker file's lines. */
  marks(): Promise<string[]>;
}

/** What {@linkcode mcpFixture} is made with. */
export interface McpFixtureOptions {
  scripts: ScriptedModelTurns[];
  /** The servers, given the marker file and the token. */
  servers: (marker: string, token: string) => Record<string, McpServerConfig>;
  sandbox?: "bwrap" | "none";
  /** More options of `mcpTools` (an opener, a fetch). */
  mcp?: Partial<McpToolsOptions>;
}

/** `node hostile_server.mjs` as a server's configuration (trusted: calls do not ask). */
export function hostile(
  marker: string,
  token: string,
  extra: string[] = [],
  more: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    command: "node",
    args: [HOSTILE_SERVER, "--marker", marker, "--token", token, ...extra],
    readPaths: [FIXTURES_DIR],
    writablePaths: [join(marker, "..")],
    trusted: true,
    ...more,
  } as McpServerConfig;
}

/**
 * Build the fixture.
 *
 * @returns the fixture (dispose it)
 */
export async function mcpFixture(options: McpFixtureOptions): Promise<McpFixture> {
  const warnings: string[] = [];
  const asked: ApprovalRequest[] = [];
  let clarifier: Clarifier = new NoOperatorClarifier("a test");
  const token = `odek-mcp-${crypto.randomUUID()}`;
  let marker = "";
  let servers: Record<string, McpServerConfig> = {};
  const f = await runtimeFixture({
    scripts: options.scripts,
    sandbox: options.sandbox ?? "bwrap",
    runtime: {
      tools: [(host) => {
        const factory = mcpTools({
          servers,
          // The clarifier of the host opened last (a getter: the test may give one without elicit).
          clarifier: {
            ask: (q, s) => clarifier.ask(q, s),
            get elicit() {
              return clarifier.elicit?.bind(clarifier);
            },
          },
          env: {},
          odekHome: f.odekHome,
          allowDomains: [],
          version: "0.0.0-test",
          warn: (message) => warnings.push(message),
          ...options.mcp,
        });
        if (!factory) throw new Error("no MCP server configured");
        return factory(host);
      }],
    },
  });
  const scratch = await f.workspace("scratch");
  marker = join(scratch, "marker.txt");
  await Deno.writeTextFile(marker, "");
  servers = options.servers(marker, token);
  const workspace = await f.workspace("ws");
  const approver: Approver = {
    decide: (request) => {
      asked.push(request);
      return Promise.resolve(
        request.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" as const })),
      );
    },
  };
  return {
    f,
    workspace,
    marker,
    token,
    warnings,
    asked,
    open: (task, o = {}) => {
      if (o.clarifier) clarifier = o.clarifier;
      return f.runtime.openSession({ task }, {
        workspace,
        approver: o.approver ?? approver,
        ...(o.trust ? { trust: o.trust } : {}),
      });
    },
    async results(host) {
      const { messages } = await f.runtime.sessions.read(host.sessionId);
      return messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    },
    async marks() {
      return (await Deno.readTextFile(marker)).split("\n").filter((l) => l !== "");
    },
    [Symbol.asyncDispose]: () => f[Symbol.asyncDispose](),
  };
}

/** The pids of processes whose command line holds `token` (read from `/proc` through `ps`). */
export async function processesWith(token: string): Promise<string[]> {
  const out = await new Deno.Command("ps", { args: ["-eo", "pid,args"], stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) =>
    line.includes(token) && !line.includes("ps -eo")
  );
}

/** Poll `check` until it holds or `ms` pass. */
export async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return await check();
}
