/**
 * Every catalogue child loads its npm packages from `tools/node_modules` with the flags it runs
 * with (`--node-modules-dir=manual --no-lock`, src/broker/_module_dir.ts), in bwrap and with
 * `sandbox: "none"`: one real call through the broker per package — files: `glob` (picomatch),
 * `tree` under a `.gitignore` (ignore), `patch` with a diff (diff); compute: `math_eval`
 * (mathjs), `json_query` (jmespath); web: `browser` (html-to-text). The web call reaches a
 * loopback server through the real egress proxy, whose resolver and connector are seams.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Verdict } from "../../src/danger/verdict.ts";
import { EgressProxy } from "../../src/broker/egress_proxy.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { bwrap, makeSandboxFixture } from "../_helpers/sandbox.ts";

const read: Verdict = { parts: [], decision: "allow", reason: "read" };
const write: Verdict = {
  parts: [{ riskClass: "local_write", subject: "patch", targets: [] }],
  decision: "allow",
  reason: "a workspace write",
};
const network: Verdict = {
  parts: [{ riskClass: "network", subject: "web", targets: [] }],
  decision: "ask",
  reason: "approved in the test",
};

async function setup(mode: "bwrap" | "none") {
  const fixture = await makeSandboxFixture({ mode });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      "<html><head><title>Packages</title></head><body><h1>Hello</h1><p>from html-to-text</p></body></html>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ));
  const egress = await EgressProxy.start({
    resolve: (name) => Promise.resolve(name === "test.example" ? ["198.51.100.7"] : [name]),
    connect: (address) => {
      if (address !== "198.51.100.7") throw new Error(`the seam connects only the test host`);
      return Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    },
  });
  const broker = new SandboxBroker({
    context: fixture.context,
    resolveWorkspace: () => Promise.resolve(fixture.workspace),
    trustLevel: "standard",
    egress,
  });
  let n = 0;
  return {
    workspace: fixture.workspace,
    run: (name: string, args: Record<string, unknown>, verdict = read): Promise<ToolResult> =>
      broker.run({ id: `c${++n}`, name, args, verdict }),
    [Symbol.asyncDispose]: async () => {
      await broker.close();
      await egress.close();
      await server.shutdown();
      await fixture[Symbol.asyncDispose]();
    },
  };
}

function output(result: ToolResult): string {
  assert.ok(result.ok, JSON.stringify(result));
  return result.output;
}

for (const mode of ["bwrap", "none"] as const) {
  Deno.test({
    name: `catalogue children load their npm packages (sandbox ${mode})`,
    ignore: mode === "bwrap" && bwrap === null,
    async fn(t) {
      await using s = await setup(mode);
      await Deno.mkdir(join(s.workspace, "src"));
      await Deno.writeTextFile(join(s.workspace, "src", "a.ts"), "one\ntwo\n");
      await Deno.writeTextFile(join(s.workspace, "src", "b.md"), "b\n");
      await Deno.mkdir(join(s.workspace, "generated"));
      await Deno.writeTextFile(join(s.workspace, "generated", "out.js"), "x\n");
      await Deno.writeTextFile(join(s.workspace, ".gitignore"), "generated/\n");
      await t.step("files: glob (picomatch)", async () => {
        assert.equal(output(await s.run("glob", { pattern: "src/*.ts" })).trim(), "src/a.ts");
      });
      await t.step("files: tree under a .gitignore (ignore)", async () => {
        const tree = output(await s.run("tree", { path: "." }));
        assert.match(tree, /a\.ts/);
        assert.doesNotMatch(tree, /out\.js/);
      });
      await t.step("files: patch with a unified diff (diff)", async () => {
        const diff = "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
        output(await s.run("patch", { path: "src/a.ts", diff }, write));
        assert.equal(await Deno.readTextFile(join(s.workspace, "src", "a.ts")), "one\nthree\n");
      });
      await t.step("compute: math_eval (mathjs)", async () => {
        assert.equal(output(await s.run("math_eval", { expression: "sqrt(16) + 1" })), "5");
      });
      await t.step("compute: json_query (jmespath)", async () => {
        const json = JSON.stringify({ items: [{ n: "a", p: 5 }, { n: "b", p: 20 }] });
        const out = output(await s.run("json_query", { json, query: "items[?p > `10`].n" }));
        assert.deepEqual(JSON.parse(out), ["b"]);
      });
      await t.step("web: browser (html-to-text)", async () => {
        const page = output(await s.run("browser", { url: "http://test.example/" }, network));
        assert.match(page, /title: Packages/);
        assert.match(page, /HELLO|Hello/);
        assert.match(page, /from html-to-text/);
        assert.doesNotMatch(page, /<p>/);
      });
    },
  });
}
