/**
 * One network namespace per session host (issue 13): a server a background job started answers
 * `curl` from later shell calls, of the same run and of a later run on the same host; a listener
 * on the host's own loopback is reached only through a granted host port; and a background job
 * on the shared loopback cannot use another call's approved egress, neither while that call runs
 * nor after it ended. Real bwrap, real nsenter, real egress proxy (its resolver and connector are
 * seams that route the documentation host `test.example` to a loopback server of this test).
 */
import assert from "node:assert/strict";
import { EgressProxy } from "../../src/broker/egress_proxy.ts";
import { NSENTER } from "../../src/broker/host_network.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { runtimeFixture } from "../runtime/_runtime_fixture.ts";

const CONTAINED: Verdict = {
  parts: [{ riskClass: "code_execution", subject: "x", targets: [] }],
  decision: "allow",
  reason: "contained",
};
const NETWORK: Verdict = {
  parts: [
    { riskClass: "code_execution", subject: "x", targets: [] },
    { riskClass: "network", subject: "curl", targets: ["test.example"] },
  ],
  decision: "ask",
  reason: "approved in the test",
};

const text = (r: ToolResult) => (r.ok ? r.output : `${r.error.kind}: ${r.error.message}`);

/** A server program for a background job: node, else deno. */
function serverCommand(port: number, body: string): string | null {
  for (const dir of ["/usr/bin", "/usr/local/bin", "/bin"]) {
    try {
      if (Deno.statSync(`${dir}/node`).isFile) {
        return `node -e 'require("http").createServer((q, r) => r.end("${body}")).listen(${port}, "127.0.0.1")'`;
      }
    } catch {
      // not here
    }
  }
  return null;
}

/** A curl that waits (inside the sandbox) for the server to answer, up to 10 s. */
const poll = (port: number) =>
  `for i in $(seq 100); do curl -sf -m 2 http://127.0.0.1:${port}/ && exit 0; sleep 0.1; done; echo unreachable; exit 1`;

const shared = NSENTER !== undefined;
if (!shared) {
  console.error("skipping shared-loopback tests: nsenter missing (apt-get install util-linux)");
}

sandboxTest(
  "a bg_start server answers curl from a later shell call of the same run and of a later run on the same host",
  async () => {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const server = serverCommand(port, "hello from bg");
    if (server === null || !shared) {
      console.error("skipping: node is not installed (apt-get install nodejs)");
      return;
    }
    await using f = await runtimeFixture({
      sandbox: "bwrap",
      scripts: [[
        { toolCalls: [{ id: "s1", name: "bg_start", arguments: { command: server } }] },
        { toolCalls: [{ id: "s2", name: "shell", arguments: { command: poll(port) } }] },
        { text: "the server answers" },
        { toolCalls: [{ id: "s3", name: "shell", arguments: { command: poll(port) } }] },
        { text: "still there" },
      ]],
    });
    await using host = await f.runtime.openSession({ task: "serve and test" }, {
      workspace: await f.workspace("ws"),
    });
    assert.deepEqual(host.warnings.filter((w) => /loopback/.test(w)), []);
    const first = await (await host.startRun()).result;
    assert.equal(first.type, "completed", JSON.stringify(first));
    const second = await (await host.startRun({ message: "check it again" })).result;
    assert.equal(second.type, "completed", JSON.stringify(second));
    const tools = (await f.runtime.sessions.read(host.sessionId)).messages
      .filter((m) => m.role === "tool").map((m) => String(m.content));
    assert.equal(tools.length, 3, tools.join("\n---\n"));
    assert.match(tools[0], /started bg1/);
    assert.match(tools[1], /hello from bg/, "the same run's later shell call");
    assert.match(tools[2], /hello from bg/, "a later run on the same session host");
  },
);

sandboxTest(
  "a loopback listener on the host is reached only through a granted host port, which no program can bind",
  async () => {
    if (!shared) return;
    let connections = 0;
    const service = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
      connections++;
      return new Response("host service");
    });
    const port = service.addr.port;
    await using f = await makeSandboxFixture();
    const broker = (hostPorts: number[]) =>
      new SandboxBroker({
        context: f.context,
        resolveWorkspace: () => Promise.resolve(f.workspace),
        trustLevel: "standard",
        hostPorts,
      });
    const shell = (b: SandboxBroker, command: string) =>
      b.run({ id: "c", name: "shell", args: { command }, verdict: CONTAINED });
    try {
      const closed = broker([]);
      try {
        const r = await shell(closed, `curl -s -m 5 http://127.0.0.1:${port}/ || echo refused`);
        assert.match(text(r), /refused/, text(r));
        assert.equal(connections, 0, "the host's listener was reached without a grant");
      } finally {
        await closed.close();
      }
      const open = broker([port]);
      try {
        assert.deepEqual((await open.start()).filter((w) => /host port/.test(w)), []);
        const r = await shell(open, `curl -s -m 5 http://127.0.0.1:${port}/`);
        assert.match(text(r), /host service/, text(r));
        assert.equal(connections, 1);
        const bind = await shell(
          open,
          `node -e 'require("net").createServer().listen(${port}, "127.0.0.1").on("error", (e) => { console.log(e.code); process.exit(0); }).on("listening", () => { console.log("BOUND"); process.exit(0); })' 2>&1 || echo no-node`,
        );
        assert.doesNotMatch(text(bind), /BOUND/, "a program bound the granted host port");
      } finally {
        await open.close();
      }
    } finally {
      await service.shutdown();
    }
  },
);

sandboxTest(
  "a background job cannot use another call's approved egress: not while it runs, not after",
  async () => {
    if (!shared) return;
    const seen: string[] = [];
    const destination = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      seen.push(new URL(req.url).pathname);
      return new Response("hello from the test host");
    });
    const egress = await EgressProxy.start({
      credentials: true,
      resolve: (name) => Promise.resolve(name === "test.example" ? ["198.51.100.7"] : [name]),
      connect: (address) => {
        if (address !== "198.51.100.7") throw new Error(`the seam connects only 198.51.100.7`);
        return Deno.connect({ hostname: "127.0.0.1", port: destination.addr.port });
      },
    });
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
      egress,
    });
    try {
      // The job waits for the approved call to publish its forwarder's port in the shared
      // scratch, then tries that forwarder without the call's credential.
      const sibling = [
        'for i in $(seq 200); do [ -s "$TMPDIR/port" ] && break; sleep 0.05; done',
        'p=$(cat "$TMPDIR/port")',
        'curl -s -m 5 -o /dev/null -w "sibling:%{http_code}\\n" -x "http://127.0.0.1:$p" http://test.example/by-sibling',
        'touch "$TMPDIR/tried"',
      ].join("; ");
      const job = await broker.run({
        id: "j1",
        name: "bg_start",
        args: { command: sibling },
        verdict: CONTAINED,
      });
      assert.ok(job.ok, text(job));
      const approved = await broker.run({
        id: "c1",
        name: "shell",
        args: {
          command: [
            'echo "${HTTP_PROXY##*:}" > "$TMPDIR/port"; echo "$HTTP_PROXY" > "$TMPDIR/proxy"',
            "curl -s -m 5 http://test.example/by-call",
            'for i in $(seq 200); do [ -e "$TMPDIR/tried" ] && break; sleep 0.05; done',
          ].join("; "),
        },
        verdict: NETWORK,
      });
      assert.match(text(approved), /hello from the test host/, text(approved));
      const status = await broker.run({
        id: "c2",
        name: "bg_output",
        args: { id: "bg1" },
        verdict: CONTAINED,
      });
      assert.match(text(status), /sibling:407/, text(status));
      // After the call ended, its credential is refused even to whoever copied it (here a later
      // call with network of its own, through its own forwarder, with the old credential).
      const later = await broker.run({
        id: "c3",
        name: "shell",
        args: {
          command: [
            'old=$(cat "$TMPDIR/proxy"); t=${old#http://odek:}; t=${t%@*}',
            'curl -s -m 5 -o /dev/null -w "later:%{http_code}\\n" -x "http://odek:$t@127.0.0.1:${HTTP_PROXY##*:}" http://test.example/later',
          ].join("; "),
        },
        verdict: NETWORK,
      });
      assert.match(text(later), /later:407/, text(later));
      // A spare sandbox, started before its call has a credential, gets it with its command.
      broker.prepare();
      const spare = await broker.run({
        id: "c4",
        name: "shell",
        args: { command: "curl -s -m 5 http://test.example/from-spare" },
        verdict: NETWORK,
      });
      assert.match(text(spare), /hello from the test host/, text(spare));
      assert.deepEqual(
        seen,
        ["/by-call", "/from-spare"],
        "only the approved calls reached the destination",
      );
    } finally {
      await broker.close();
      await destination.shutdown();
    }
  },
);
