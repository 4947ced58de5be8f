import assert from "node:assert/strict";
import { join } from "node:path";
import {
  approveProjectMcpServers,
  type McpServerAnswer,
  type McpServerApprovalRequest,
} from "../../src/config/approve_project_mcp_servers.ts";
import { McpApprovalStore, mcpServerHash } from "../../src/config/mcp_approval_store.ts";
import type { ProjectMcpServer } from "../../src/config/mcp_servers.ts";
import { readProjectLayer } from "../../src/config/read_project_layer.ts";
import { tightenProjectLayer } from "../../src/config/tighten_project_layer.ts";
import { DEFAULT_CONFIG } from "../../src/config/odek_config.ts";

/** A scratch ODEK_HOME and workspace; the servers named are never started by these tests. */
async function scratch() {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-mcp-approval-" }));
  const ws = join(dir, "ws");
  const home = join(dir, "odek-home");
  await Deno.mkdir(ws);
  await Deno.mkdir(home, { mode: 0o700 });
  return {
    ws,
    home,
    store: McpApprovalStore.inHome(home),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** An operator that answers from a list and remembers what it was asked. */
function operator(answers: McpServerAnswer[]) {
  const asked: McpServerApprovalRequest[] = [];
  return {
    asked,
    ask: (request: McpServerApprovalRequest) => {
      asked.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`asked once too often about ${request.server}`);
      return Promise.resolve(answer);
    },
  };
}

/** What the project file declares, read the way a session host reads it. */
async function projectServers(ws: string): Promise<Record<string, ProjectMcpServer>> {
  const read = await readProjectLayer(ws);
  return tightenProjectLayer(read.layer!, DEFAULT_CONFIG, read.file).mcpServers;
}

const SERVER = {
  command: "node",
  args: ["tools/mcp-server.js", "--root", "."],
  env: {
    LOG_LEVEL: "debug",
    SERVICE_TOKEN: "value-never-shown-123",
    NODE_OPTIONS: "--require ./x.js",
  },
  network: ["127.0.0.1"],
  writablePaths: ["./out"],
};

Deno.test("a project MCP server stays inert until approved; approved, it is handed on; a changed entry asks again", async () => {
  await using s = await scratch();
  const file = join(s.ws, "odek.jsonc");
  await Deno.writeTextFile(file, JSON.stringify({ mcpServers: { files: SERVER } }));
  const decide = async (ask?: ReturnType<typeof operator>) =>
    approveProjectMcpServers({
      project: s.ws,
      file,
      servers: await projectServers(s.ws),
      store: s.store,
      ...(ask ? { ask: ask.ask } : {}),
    });

  // Nobody to ask: inert, with a warning naming the server and the file.
  const unattended = await decide();
  assert.deepEqual(unattended.approved, []);
  assert.match(
    unattended.warnings[0],
    new RegExp(`${file}: MCP server "files" not started: it is not approved`),
  );

  // Denied: inert, nothing stored.
  const no = operator(["deny"]);
  assert.deepEqual((await decide(no)).approved, []);
  assert.deepEqual(await s.store.list(), []);

  // Once: started now, asked again next time.
  const once = operator(["once", "always"]);
  const first = await decide(once);
  assert.equal(first.approved[0].how, "once");
  assert.deepEqual(first.approved[0].entry, SERVER);
  assert.deepEqual(await s.store.list(), []);
  const second = await decide(once);
  assert.equal(second.approved[0].how, "always");
  assert.equal(once.asked.length, 2);

  // Stored: the next host starts it without asking.
  const quiet = operator([]);
  const third = await decide(quiet);
  assert.equal(third.approved[0].how, "stored");
  assert.equal(quiet.asked.length, 0);
  const [stored] = await s.store.list();
  assert.equal(stored.project, s.ws);
  assert.equal(stored.sha256, await mcpServerHash("files", SERVER));
  assert.equal((await Deno.stat(s.store.file)).mode! & 0o777, 0o600);

  // The file changes (one argument): it asks again, and unattended it stays inert.
  await Deno.writeTextFile(
    file,
    JSON.stringify({ mcpServers: { files: { ...SERVER, args: [...SERVER.args, "--extra"] } } }),
  );
  assert.deepEqual((await decide()).approved, []);
  const again = operator(["always"]);
  assert.equal((await decide(again)).approved[0].how, "always");
  assert.equal(again.asked.length, 1);
  assert.equal((await s.store.list()).length, 1, "the new approval replaced the old one");
});

Deno.test("the prompt shows the command, the arguments, the environment's names and the sandbox, never a secret value", async () => {
  await using s = await scratch();
  const ask = operator(["deny"]);
  await approveProjectMcpServers({
    project: s.ws,
    file: join(s.ws, "odek.jsonc"),
    servers: { files: SERVER },
    store: s.store,
    ask: ask.ask,
  });
  const text = ask.asked[0].text;
  assert.match(text, /MCP server "files"/);
  assert.match(text, /command: +"node"/);
  assert.match(text, /arguments: +\["tools\/mcp-server\.js","--root","\."\]/);
  assert.match(text, /environment: LOG_LEVEL, SERVICE_TOKEN, NODE_OPTIONS="--require \.\/x\.js"/);
  assert.match(text, /sandbox: +network: \["127\.0\.0\.1"\]; writablePaths: \["\.\/out"\]/);
  assert.doesNotMatch(text, /value-never-shown|debug/);
});

Deno.test("a project server may not take the name of one of the user's own servers", async () => {
  await using s = await scratch();
  const ask = operator([]);
  const decision = await approveProjectMcpServers({
    project: s.ws,
    file: join(s.ws, "odek.jsonc"),
    servers: { github: { command: "node", args: ["fake-github.js"] } },
    store: s.store,
    ask: ask.ask,
    reserved: ["github"],
  });
  assert.deepEqual(decision.approved, []);
  assert.equal(ask.asked.length, 0);
  assert.match(decision.warnings[0], /a project may not replace/);
});

Deno.test("approvals are per project path: the same entry in another workspace asks again", async () => {
  await using s = await scratch();
  await s.store.approve(s.ws, "files", await mcpServerHash("files", SERVER));
  const ask = operator(["deny"]);
  const decision = await approveProjectMcpServers({
    project: join(s.ws, "..", "other"),
    file: "/elsewhere/odek.jsonc",
    servers: { files: SERVER },
    store: s.store,
    ask: ask.ask,
  });
  assert.deepEqual(decision.approved, []);
  assert.equal(ask.asked.length, 1);
});

Deno.test("an invalid approvals file is an error naming it, and it is not overwritten", async () => {
  await using s = await scratch();
  await Deno.writeTextFile(s.store.file, "{ not json");
  await assert.rejects(
    () => s.store.approve(s.ws, "files", "a".repeat(64)),
    /not a valid approvals file/,
  );
  assert.equal(await Deno.readTextFile(s.store.file), "{ not json");
});

Deno.test("a project's mcpServers entry without command or url is a schema error naming the file", async () => {
  await using s = await scratch();
  await Deno.writeTextFile(join(s.ws, "odek.jsonc"), '{ "mcpServers": { "x": { "args": [] } } }');
  await assert.rejects(
    () => readProjectLayer(s.ws),
    /odek\.jsonc at "mcpServers\.x": .*command .*url/,
  );
});

Deno.test("an ApprovedProjectMcpServer cannot be made outside the approval, and is frozen", async () => {
  const { ApprovedProjectMcpServer } = await import(
    "../../src/config/approve_project_mcp_servers.ts"
  );
  assert.throws(
    () =>
      new ApprovedProjectMcpServer(
        Symbol("forged"),
        "x",
        { command: "node" },
        "0".repeat(64),
        "once",
      ),
    /Only approveProjectMcpServers\(\) approves/,
  );
  await using s = await scratch();
  const ask = operator(["once"]);
  const [server] = (await approveProjectMcpServers({
    project: s.ws,
    file: join(s.ws, "odek.jsonc"),
    servers: { files: { command: "node", args: ["s.js"] } },
    store: s.store,
    ask: ask.ask,
  })).approved;
  assert.ok(server instanceof ApprovedProjectMcpServer);
  assert.ok(Object.isFrozen(server) && Object.isFrozen(server.entry.args));
});

Deno.test("terminalMcpServerPrompt() reads y / a / anything else from the terminal, and shows the request", async (t) => {
  const { terminalMcpServerPrompt } = await import(
    "../../src/approval/terminal_mcp_server_prompt.ts"
  );
  await using s = await scratch();
  const request: McpServerApprovalRequest = {
    server: "files",
    file: join(s.ws, "odek.jsonc"),
    project: s.ws,
    entry: SERVER,
    sha256: "0".repeat(64),
    text: 'The project file asks to start the MCP server "files":\n  command: "node"\u001b[2J',
  };
  for (
    const [typed, answer] of [["y\n", "once"], ["a\n", "always"], ["n\n", "deny"], ["", "deny"]]
  ) {
    await t.step(JSON.stringify(typed), async () => {
      const tty = join(s.ws, "tty");
      await Deno.writeTextFile(tty, typed);
      let shown = "";
      const ask = terminalMcpServerPrompt({
        ttyPath: tty,
        output: { write: (p) => Promise.resolve((shown += new TextDecoder().decode(p), p.length)) },
      });
      assert.equal(await ask(request), answer);
      assert.match(shown, /MCP server "files"/);
      assert.ok(!shown.includes("\u001b"), "an escape reached the terminal");
    });
  }
});
