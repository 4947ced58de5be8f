// The compute child end to end: the real tools/compute.ts through SandboxBroker and
// ToolChildPool (bwrap, and Deno flags alone in mode none), and a probe run in the same
// configuration proving that file, network, environment, subprocess and FFI access are all
// NotCapable there.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import { ToolChildPool } from "../../src/broker/tool_child_pool.ts";
import { makeSandboxFixture, type SandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const NOTHING: PermissionSet = {
  readPaths: [],
  writePaths: [],
  network: { type: "none" },
  runBinaries: [],
  envNames: [],
};
const PROBE_SOURCE = fileURLToPath(new URL("./_probe_child.ts", import.meta.url));

function brokerFor(f: SandboxFixture, trustLevel: "standard" | "untrusted" = "standard") {
  return new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel,
  });
}

async function computeRoundTrip(f: SandboxFixture): Promise<void> {
  const broker = brokerFor(f, "untrusted");
  try {
    const run = (name: string, args: Record<string, unknown>) =>
      broker.run({ id: name, name, args });
    assert.deepEqual(await run("math_eval", { expression: "2^10 + sqrt(16)" }), {
      ok: true,
      output: "1028",
    });
    assert.deepEqual(await run("checksum", { text: "abc" }), {
      ok: true,
      output: "sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    });
    assert.deepEqual(await run("base64", { text: "aGk=", action: "decode" }), {
      ok: true,
      output: "hi",
    });
    assert.deepEqual(await run("json_query", { json: '{"a":{"b":[1,2]}}', query: "a.b[1]" }), {
      ok: true,
      output: "2",
    });
    const diff = await run("diff", { old: "a\nb\n", new: "a\nc\n" });
    assert.ok(diff.ok && diff.output.includes("-b\n+c"), JSON.stringify(diff));
    const bad = await run("math_eval", { expression: "import({})" });
    assert.equal(!bad.ok && bad.error.kind, "invalid_arguments");
  } finally {
    await broker.close();
  }
}

sandboxTest(
  "SandboxBroker.run() runs the compute tools in their child inside bwrap, even untrusted",
  async () => {
    await using f = await makeSandboxFixture();
    await computeRoundTrip(f);
  },
);

Deno.test("SandboxBroker.run() runs the compute tools with Deno flags alone in mode none", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  await computeRoundTrip(f);
});

sandboxTest("ToolChildPool.call() refuses a file tool sent to the compute child", async () => {
  await using f = await makeSandboxFixture();
  await Deno.writeTextFile(join(f.workspace, "a.txt"), "workspace file\n");
  const pool = new ToolChildPool({
    context: f.context,
    entry: join(f.context.toolsDir, "compute.ts"),
    permissions: "none",
  });
  try {
    const result = await pool.call("read_file", { path: join(f.workspace, "a.txt") }, {
      set: NOTHING,
      workspace: "/",
    });
    assert.equal(!result.ok && result.error.kind, "unknown_tool");
    assert.match(!result.ok ? result.error.message : "", /The compute child has no tool read_file/);
  } finally {
    await pool.close();
  }
});

async function probeInComputeConfiguration(f: SandboxFixture): Promise<Record<string, string>> {
  // A tools directory of its own (only it is bound into the child's sandbox), with the probe.
  const toolsDir = join(f.workspace, "..", "probe-tools");
  await Deno.mkdir(toolsDir, { recursive: true });
  await Deno.copyFile(PROBE_SOURCE, join(toolsDir, "probe.ts"));
  await Deno.writeTextFile(join(toolsDir, "deno.json"), "{}\n");
  await Deno.writeTextFile(join(f.workspace, "a.txt"), "workspace file\n");
  let connections = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    connections++;
    return new Response("reached");
  });
  const pool = new ToolChildPool({
    context: { ...f.context, toolsDir },
    entry: join(toolsDir, "probe.ts"),
    permissions: "none",
  });
  try {
    const { port } = server.addr;
    const result = await pool.call("probe", {
      file: join(f.workspace, "a.txt"),
      url: `http://127.0.0.1:${port}/`,
      port,
    }, { set: NOTHING, workspace: "/" });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(connections, 0, "the listener saw no connection");
    return JSON.parse(result.output);
  } finally {
    await pool.close();
    await server.shutdown();
  }
}

const EVERY_ACCESS = [
  "readTextFile",
  "readDir",
  "stat",
  "writeTextFile",
  "fetch",
  "connect",
  "envGet",
  "envToObject",
  "run",
  "hostname",
  "ffi",
];

sandboxTest(
  "The compute child's configuration denies every file, network, env, run and FFI access (bwrap)",
  async () => {
    await using f = await makeSandboxFixture();
    const seen = await probeInComputeConfiguration(f);
    assert.deepEqual(seen, Object.fromEntries(EVERY_ACCESS.map((k) => [k, "NotCapable"])));
  },
);

Deno.test("The compute child's configuration denies every file, network, env, run and FFI access (Deno flags alone)", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  const seen = await probeInComputeConfiguration(f);
  assert.deepEqual(seen, Object.fromEntries(EVERY_ACCESS.map((k) => [k, "NotCapable"])));
});
