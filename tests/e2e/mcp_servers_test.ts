// The real @modelcontextprotocol/server-filesystem and server-everything (pinned in
// tests/mcp/fixtures/package.json, installed by .ci/run) started with node in odek's sandbox by
// `odek run`; a scripted model calls their tools; an elicitation is answered at a pseudo-terminal.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { bwrap } from "../_helpers/sandbox.ts";
import { processesWith } from "../mcp/_mcp_fixture.ts";
import { ODEK_FLAGS, odekFixture, ROOT, toolMessages } from "./_odek.ts";

const MODULES = fileURLToPath(new URL("../mcp/fixtures/node_modules", import.meta.url));
const FILESYSTEM = join(MODULES, "@modelcontextprotocol/server-filesystem/dist/index.js");
const EVERYTHING = join(MODULES, "@modelcontextprotocol/server-everything/dist/index.js");

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}
const installed = await exists(FILESYSTEM) && await exists(EVERYTHING);
const node = await exists("/usr/bin/node") || await exists("/usr/local/bin/node");
const script = await exists("/usr/bin/script");
const why = !bwrap
  ? "bwrap is not installed (apt-get install bubblewrap)"
  : !node
  ? "node is not installed at /usr/bin or /usr/local/bin (apt-get install nodejs)"
  : !installed
  ? "the MCP fixture servers are not installed: npm ci --prefix tests/mcp/fixtures"
  : undefined;
if (why) console.error(`skipping the real MCP server tests: ${why}`);

function server(entry: string, args: string[], more: Record<string, unknown> = {}) {
  return { command: "node", args: [entry, ...args], readPaths: [MODULES], ...more };
}

Deno.test({
  name:
    "odek run: server-filesystem's tools run in the sandbox and their results reach the transcript",
  ignore: why !== undefined,
  async fn() {
    await using fx = await odekFixture();
    await Deno.writeTextFile(join(fx.workspace, "hello.txt"), "hello from the workspace\n");
    const mcpServers = { fs: server(FILESYSTEM, [fx.workspace], { trusted: true }) };
    await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), JSON.stringify({ mcpServers }));
    const model = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [{
            id: "read",
            name: "fs__read_text_file",
            arguments: { path: join(fx.workspace, "hello.txt") },
          }],
        },
        {
          toolCalls: [{
            id: "write",
            name: "fs__write_file",
            arguments: { path: join(fx.workspace, "new.txt"), content: "x" },
          }],
        },
        { text: "done" },
      ],
    });
    try {
      const result = await fx.run(["run", "--base-url", model.url, "read hello.txt"], {
        noTerminal: true,
      });
      assert.equal(result.code, 0, result.stderr);
      const tools = (model.requests[0].body as { tools: { function: { name: string } }[] }).tools
        .map((t) => t.function.name);
      assert.ok(tools.includes("fs__read_text_file") && tools.includes("read_file"), tools.join());
      const [read] = toolMessages(model.requests[1].body);
      assert.match(read.content, /hello from the workspace/);
      const [, write] = toolMessages(model.requests[2].body);
      // The server's sandbox has the workspace read-only unless writablePaths says otherwise.
      assert.match(write.raw, /^error \(failed\)[^]*EROFS: read-only file system/);
      assert.equal(await exists(join(fx.workspace, "new.txt")), false);
      assert.deepEqual(await processesWith(fx.workspace), []);
    } finally {
      await model.close();
    }
  },
});

Deno.test({
  name:
    "odek run: server-everything's elicitation is answered at a pseudo-terminal; its env holds no secret",
  ignore: why !== undefined || !script,
  async fn() {
    await using fx = await odekFixture();
    const canary = `canary-${crypto.randomUUID()}`;
    const token = `odek-e2e-${crypto.randomUUID()}`; // an argument the server ignores
    const mcpServers = { everything: server(EVERYTHING, ["stdio", token]) };
    await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), JSON.stringify({ mcpServers }));
    const model = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [{
            id: "ask",
            name: "everything__trigger-elicitation-request",
            arguments: {},
          }],
        },
        { toolCalls: [{ id: "env", name: "everything__get-env", arguments: {} }] },
        { text: "done" },
      ],
    });
    try {
      const odek = [Deno.execPath(), ...ODEK_FLAGS, join(ROOT, "main.ts")];
      const line = [...odek, "run", "--base-url", model.url, "ask me"].map(quote).join(" ");
      const child = new Deno.Command("script", {
        args: ["-qfec", line, "/dev/null"],
        env: { ...fx.env, GITHUB_TOKEN: canary },
        clearEnv: true,
        cwd: fx.workspace,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(120_000),
      }).spawn();
      // Approve the first call (y), answer the form (y), then its 13 fields in order; an empty
      // line keeps the default. Then approve the second call.
      const typed = [
        "y",
        "y",
        "Ada Lovelace",
        "y",
        "",
        "",
        "",
        "",
        "7",
        "",
        "2",
        "1,3",
        "",
        "",
        "2",
        "y",
      ];
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(typed.map((l) => `${l}\n`).join("")));
      await writer.close();
      const out = await child.output();
      const screen = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, screen);
      assert.match(screen, /MCP server everything tool "trigger-elicitation-request"/);
      assert.match(screen, /the server's scope: stdio node in a sandbox: workspace read-only/);
      assert.match(screen, /MCP server "everything" asks for input/);
      assert.match(screen, /Untitled Single Select Enum \(one of\)/);
      const [answer] = toolMessages(model.requests[1].body);
      assert.match(answer.content, /- Name: Ada Lovelace/);
      assert.match(answer.content, /- Agreed to terms: true/);
      assert.match(answer.content, /- Favorite Integer: 7/);
      assert.match(answer.content, /"untitledSingleSelectEnum": "Rachel"/);
      assert.match(answer.content, /"legacyTitledEnum": "pet-2"/);
      assert.match(answer.content, /"firstLine": "It was a dark and stormy night\."/);
      const [, env] = toolMessages(model.requests[2].body);
      assert.match(env.content, /"PATH"/);
      assert.doesNotMatch(env.raw, new RegExp(canary));
      assert.doesNotMatch(env.raw, /GITHUB_TOKEN|ODEK_HOME/);
      assert.deepEqual(await processesWith(token), []);
    } finally {
      await model.close();
    }
  },
});

function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
