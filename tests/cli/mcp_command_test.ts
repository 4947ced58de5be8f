import assert from "node:assert/strict";
import { join } from "node:path";
import type { CliIO } from "../../src/cli/cli_io.ts";
import { main } from "../../src/cli/main.ts";
import { McpStatusFile } from "../../src/mcp/mcp_status.ts";
import { OAuthStore } from "../../src/mcp/oauth_store.ts";

async function layout(config: unknown) {
  const home = await Deno.realPath(await Deno.makeTempDir());
  const odekHome = join(home, ".odek");
  await Deno.mkdir(odekHome);
  await Deno.writeTextFile(join(odekHome, "config.jsonc"), JSON.stringify(config));
  const io = {
    out: "",
    err: "",
    stdout: { write: (t: string) => void (io.out += t) },
    stderr: { write: (t: string) => void (io.err += t) },
    readStdin: () => Promise.resolve(""),
    stdinIsTerminal: false,
    stderrIsTerminal: false,
    env: { HOME: home, ODEK_HOME: odekHome },
    callerDir: home,
    installDir: "/nonexistent-odek",
    onSignal: () => () => {},
  };
  return {
    home,
    odekHome,
    io: io as CliIO & { out: string; err: string },
    [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }),
  };
}

const CONFIG = {
  mcpServers: {
    fs: { command: "node", args: ["/srv/fs/index.js"], trusted: true },
    api: { url: "http://127.0.0.1:9/mcp" },
    off: { command: "node", enabled: false },
  },
};

Deno.test("odek mcp list: every configured server with its kind, state, tools, login and last error", async () => {
  await using l = await layout(CONFIG);
  await new McpStatusFile(l.odekHome).update([
    { name: "fs", state: "stopped", tools: ["fs__read_file", "fs__list"] },
    { name: "api", state: "failed", tools: [], lastError: 'run "odek mcp login api"' },
  ]);
  assert.equal(await main(["mcp", "list"], l.io), 0, l.io.err);
  assert.match(
    l.io.out,
    /^fs \(stdio, stopped, 2 tools, trusted, as of \S+\)\n {2}node \/srv\/fs\/index\.js\n {2}tools: fs__read_file, fs__list\n/m,
  );
  assert.match(
    l.io.out,
    /^api \(http, failed, 0 tools, not logged in, as of \S+\)\n {2}http:\/\/127\.0\.0\.1:9\/mcp\n {2}last error: run "odek mcp login api"/m,
  );
  assert.match(l.io.out, /^off \(stdio, disabled, 0 tools\)/m);
  l.io.out = "";
  await new OAuthStore(l.odekHome).save("api", {
    serverUrl: "http://127.0.0.1:9/mcp",
    tokens: { "": { access_token: "tok-1234" } },
  });
  assert.equal(await main(["mcp", "list", "--json"], l.io), 0);
  const rows = JSON.parse(l.io.out) as { name: string; login?: string }[];
  assert.equal(rows.find((r) => r.name === "api")?.login, "logged in");
  assert.doesNotMatch(l.io.out, /tok-1234/);
});

Deno.test("odek mcp logout forgets a login; login and logout refuse stdio and unknown servers", async () => {
  await using l = await layout(CONFIG);
  const store = new OAuthStore(l.odekHome);
  await store.save("api", { serverUrl: "http://127.0.0.1:9/mcp", tokens: { "": { a: 1 } } });
  assert.equal(await main(["mcp", "logout", "api"], l.io), 0, l.io.err);
  assert.match(l.io.out, /Logged out of MCP server api/);
  assert.equal(await store.load("api", "http://127.0.0.1:9/mcp"), undefined);
  assert.equal(await main(["mcp", "logout", "api"], l.io), 0);
  assert.match(l.io.out, /had no stored login/);
  assert.equal(await main(["mcp", "login", "fs"], l.io), 2);
  assert.match(l.io.err, /fs is a stdio server: only HTTP servers log in/);
  assert.equal(await main(["mcp", "login", "nope"], l.io), 2);
  assert.match(l.io.err, /no MCP server "nope" in mcpServers \(servers: fs, api, off\)/);
  assert.equal(await main(["mcp", "dance"], l.io), 2);
  assert.equal(await main(["mcp", "--help"], l.io), 0);
  assert.match(l.io.out, /Usage: odek mcp <list\|login\|logout\|serve>/);
});

Deno.test("mcpServers is validated: names, and one of command or url", async (t) => {
  const bad: [string, unknown, RegExp][] = [
    ["a name with __", { "a__b": { command: "node" } }, /mcpServers\.a__b|server name/],
    ["an unknown key", { s: { command: "node", comand: "x" } }, /mcpServers\.s/],
    ["neither command nor url", { s: { args: [] } }, /mcpServers\.s/],
    ["a url that is not http", { s: { url: "file:///etc/passwd" } }, /mcpServers\.s/],
    ["a timeout out of range", { s: { command: "node", timeoutSeconds: 0 } }, /mcpServers\.s/],
  ];
  for (const [name, mcpServers, error] of bad) {
    await t.step(name, async () => {
      await using l = await layout({ mcpServers });
      assert.equal(await main(["mcp", "list"], l.io), 1, l.io.out);
      assert.match(l.io.err, /Invalid configuration in .*config\.jsonc/);
      assert.match(l.io.err, error);
    });
  }
});
