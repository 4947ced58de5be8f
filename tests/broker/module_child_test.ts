import assert from "node:assert/strict";
import { moduleDirProblem, withModuleDir } from "../../src/broker/_module_dir.ts";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import { renderSandbox, type SandboxContext } from "../../src/broker/render_sandbox.ts";

const WS = "/srv/ws";
const CONTEXT: SandboxContext = {
  mode: "bwrap",
  bwrapPath: "/usr/bin/bwrap",
  denoPath: "/usr/bin/deno",
  denoDir: "/home/u/.cache/deno",
  toolsDir: "/opt/odek/tools",
  workspace: WS,
  home: "/home/u",
  odekHome: "/home/u/.odek",
  installDir: "/opt/odek",
  protectedRoots: ["/home/u/.odek", "/opt/odek"],
  readOnlyHomeFiles: [],
  hiddenPaths: { dirs: ["/etc/ssh/keys"], files: [] },
};
const ENTRY = "/opt/odek/tools/module_tool.ts";
const MODULE = { path: "/home/u/my_tools/word_count.ts", tool: "word_count" };

function scope(partial: Partial<PermissionSet> = {}): PermissionSet {
  return withModuleDir({
    readPaths: [WS],
    writePaths: [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
    ...partial,
  }, MODULE);
}

function render(set: PermissionSet, context: SandboxContext = CONTEXT, module = MODULE) {
  return renderSandbox(set, context, { kind: "tool_child", entry: ENTRY, module }).argv;
}

/** The bind of `path`, as `[op, source]`, or undefined. */
function bindOf(argv: string[], path: string): string | undefined {
  const at = argv.findIndex((arg, i) =>
    arg.startsWith("--") && argv[i + 2] === path && argv[i + 1] === path
  );
  return at < 0 ? undefined : argv[at];
}

Deno.test("renderSandbox() gives a module-tool child its module's directory read-only and the tools' import map alone", async (t) => {
  await t.step(
    "a read scope: the directory bound read-only and readable; the workspace read-only",
    () => {
      const argv = render(scope());
      const deno = argv.slice(argv.indexOf("run") - 1);
      assert.deepEqual(deno.slice(0, 10), [
        "/usr/bin/deno",
        "run",
        "--no-prompt",
        "--no-remote",
        "--cached-only",
        "--no-config",
        "--no-lock",
        "--node-modules-dir=none",
        "--import-map=/opt/odek/tools/deno.json",
        deno[9], // the linear regexp fallback
      ]);
      assert.ok(deno.includes("--allow-read=/home/u/my_tools,/srv/ws"), deno.join(" "));
      assert.ok(!deno.some((a) => a.startsWith("--allow-write") || a.startsWith("--allow-net")));
      assert.ok(!deno.some((a) => a === "--config" || a === "-A" || a.startsWith("--allow-run")));
      assert.deepEqual(deno.slice(-3), [
        ENTRY,
        "--module=/home/u/my_tools/word_count.ts",
        "--tool=word_count",
      ]);
      assert.equal(bindOf(argv, "/home/u/my_tools"), "--ro-bind");
      assert.equal(bindOf(argv, WS), "--ro-bind");
      // Bound after the home's tmpfs, so it shows through it.
      assert.ok(argv.indexOf("/home/u/my_tools") > argv.lastIndexOf("/home/u"));
    },
  );
  await t.step(
    "a write scope: the workspace writable, the module's directory still read-only",
    () => {
      const argv = render(scope({ writePaths: [WS] }));
      assert.ok(argv.includes(`--allow-write=${WS}`));
      assert.equal(bindOf(argv, WS), "--bind");
      assert.equal(bindOf(argv, "/home/u/my_tools"), "--ro-bind");
    },
  );
  await t.step("a module inside a writable workspace stays read-only (bound after it)", () => {
    const module = { path: `${WS}/tools/t.ts`, tool: "t" };
    const set = withModuleDir(scope({ writePaths: [WS] }), module);
    const argv = render(set, CONTEXT, module);
    assert.equal(bindOf(argv, `${WS}/tools`), "--ro-bind");
    assert.ok(argv.indexOf(`${WS}/tools`) > argv.indexOf(WS));
  });
  await t.step("a catalogue child keeps the tools' config", () => {
    const argv =
      renderSandbox(scope(), CONTEXT, { kind: "tool_child", entry: "/opt/odek/tools/files.ts" })
        .argv;
    const at = argv.indexOf("--config");
    assert.equal(argv[at + 1], "/opt/odek/tools/deno.json");
    assert.ok(!argv.some((a) => a.startsWith("--module=") || a === "--no-config"));
  });
});

Deno.test("renderSandbox() refuses a module-tool child that would show what sandboxes hide", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["the home itself", "/home/u/t.ts", /would show the home directory/],
    ["an ancestor of the home", "/home/t.ts", /would show the home directory/],
    ["/", "/t.ts", /would show the home directory/],
    ["inside ODEK_HOME", "/home/u/.odek/tools/t.ts", /overlaps \/home\/u\/\.odek/],
    ["inside the install directory", "/opt/odek/examples/t.ts", /overlaps \/opt\/odek/],
    ["around the install directory", "/opt/t.ts", /overlaps \/opt\/odek/],
    ["inside a hidden directory", "/etc/ssh/keys/t.ts", /which every sandbox hides/],
    ["a path that is not normalized", "/home/u/a/../t.ts", /not an absolute real path|normalized/],
  ];
  for (const [what, path, message] of cases) {
    await t.step(what, () => {
      const module = { path, tool: "t" };
      assert.throws(
        () => render(withModuleDir(scope(), module), CONTEXT, module),
        (error) => error instanceof RangeError && message.test(error.message),
      );
    });
  }
  await t.step(
    "a bad tool name, a scope without the module's directory, a child without permissions",
    () => {
      assert.throws(() => render(scope(), CONTEXT, { ...MODULE, tool: "a b" }), /Not a tool name/);
      const bare = {
        readPaths: [WS],
        writePaths: [],
        network: { type: "none" as const },
        runBinaries: [],
        envNames: [],
      };
      assert.throws(() => render(bare), /does not make \/home\/u\/my_tools readable/);
      const none = { ...bare, readPaths: [] };
      assert.throws(
        () =>
          renderSandbox(none, CONTEXT, {
            kind: "tool_child",
            entry: ENTRY,
            permissions: "none",
            module: MODULE,
          }),
        /runs with its scope/,
      );
    },
  );
  await t.step("moduleDirProblem() accepts a directory of its own", () => {
    assert.equal(moduleDirProblem("/home/u/my_tools", CONTEXT), undefined);
    assert.equal(moduleDirProblem("/var/tmp/tools", CONTEXT), undefined);
    assert.match(moduleDirProblem("/srv/a,b", CONTEXT) ?? "", /without commas/);
  });
});
