import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import {
  type RenderedSandbox,
  renderSandbox,
  SANDBOX_LAUNCHER,
  SANDBOX_PATH,
  type SandboxCommand,
  type SandboxContext,
} from "../../src/broker/render_sandbox.ts";

const WS = "/srv/ws";
const CONTEXT: SandboxContext = {
  mode: "bwrap",
  bwrapPath: "/usr/bin/bwrap",
  denoPath: "/home/u/.deno/bin/deno",
  denoDir: "/home/u/.cache/deno",
  toolsDir: "/opt/odek/tools",
  workspace: WS,
  home: "/home/u",
  odekHome: "/home/u/.odek",
  installDir: "/opt/odek",
  protectedRoots: ["/home/u/.odek", "/opt/odek"],
  readOnlyHomeFiles: ["/home/u/.gitconfig"],
};
const TOOL: SandboxCommand = { kind: "tool_child", entry: "/opt/odek/tools/files.ts" };
const PROGRAM: SandboxCommand = { kind: "program", argv: ["bash", "-c", "echo hi"] };

function set(partial: Partial<PermissionSet> = {}): PermissionSet {
  return {
    readPaths: [WS],
    writePaths: [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
    ...partial,
  };
}

/** The [op, path] mount operations of a bwrap argv, in order. */
function mounts(argv: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < argv.length && argv[i] !== "--"; i++) {
    const op = argv[i];
    if (["--tmpfs", "--dev", "--proc"].includes(op)) out.push([op, argv[++i]]);
    else if (/^--(ro-)?bind(-try)?$/.test(op)) {
      assert.equal(argv[i + 1], argv[i + 2], `${op} binds ${argv[i + 1]} at its own path`);
      out.push([op, argv[i + 2]]);
      i += 2;
    }
  }
  return out;
}

Deno.test("renderSandbox() renders the documented sandbox for each kind of command", async (t) => {
  await t.step("read-only tool child", () => {
    const { argv, env } = renderSandbox(set(), CONTEXT, TOOL);
    const sep = argv.indexOf("--");
    assert.deepEqual(argv.slice(0, 7), [
      "/bin/sh",
      "-c",
      SANDBOX_LAUNCHER,
      "odek-sandbox",
      "", // a tool child gets no process limit
      "",
      "", // this context has no seccomp filter
    ]);
    assert.ok(!argv.includes("--seccomp"));
    assert.deepEqual(argv.slice(7, 18), [
      "/usr/bin/bwrap",
      "--die-with-parent",
      "--new-session",
      "--unshare-all",
      "--unshare-net",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--dev",
    ]);
    assert.deepEqual(mounts(argv), [
      ["--ro-bind", "/"],
      ["--dev", "/dev"],
      ["--proc", "/proc"],
      ["--ro-bind", "/proc/sys"],
      ["--ro-bind-try", "/proc/sysrq-trigger"],
      ["--ro-bind-try", "/proc/irq"],
      ["--ro-bind-try", "/proc/bus"],
      ["--tmpfs", "/tmp"],
      ["--tmpfs", "/run"],
      ["--tmpfs", "/home/u"],
      ["--tmpfs", "/opt/odek"],
      ["--ro-bind", WS],
      ["--tmpfs", "/home/u/.odek"],
      ["--ro-bind-try", "/home/u/.gitconfig"],
      ["--ro-bind", "/opt/odek/tools"],
      ["--ro-bind-try", "/home/u/.cache/deno"],
      ["--ro-bind", "/home/u/.deno/bin/deno"],
    ]);
    assert.deepEqual(argv.slice(sep - 2), [
      "--chdir",
      WS,
      "--",
      "/home/u/.deno/bin/deno",
      "run",
      "--no-prompt",
      "--no-remote",
      "--cached-only",
      "--config",
      "/opt/odek/tools/deno.json",
      `--allow-read=${WS}`,
      "/opt/odek/tools/files.ts",
    ]);
    assert.deepEqual(env, {
      PATH: SANDBOX_PATH,
      HOME: "/home/u",
      PWD: WS,
      OLDPWD: WS,
      LANG: "C.UTF-8",
      TMPDIR: "/tmp",
      NO_COLOR: "1",
      DENO_DIR: "/home/u/.cache/deno",
    });
  });
  await t.step("writable tool child with extra read and write paths", () => {
    const { argv } = renderSandbox(
      set({ readPaths: [WS, "/data/ref"], writePaths: [WS, "/home/u/.bashrc"] }),
      CONTEXT,
      TOOL,
    );
    assert.ok(argv.includes(`--allow-read=/data/ref,/home/u/.bashrc,${WS}`));
    assert.ok(argv.includes(`--allow-write=/home/u/.bashrc,${WS}`));
    const m = mounts(argv);
    assert.ok(m.some(([op, p]) => op === "--bind" && p === WS));
    assert.ok(m.some(([op, p]) => op === "--bind" && p === "/home/u/.bashrc"));
    assert.ok(m.some(([op, p]) => op === "--ro-bind" && p === "/data/ref"));
  });
  await t.step("program: no Deno, no tools, the argv as given", () => {
    const { argv, env } = renderSandbox(set({ writePaths: [WS] }), CONTEXT, PROGRAM);
    assert.deepEqual(argv.slice(argv.indexOf("--")), ["--", "bash", "-c", "echo hi"]);
    assert.ok(!argv.some((a) => a.startsWith("--allow-") || a.includes("deno")));
    assert.ok(!mounts(argv).some(([, p]) => p === "/opt/odek/tools"));
    assert.equal(env.DENO_DIR, undefined);
  });
  await t.step("program: a pids cgroup limit and the seccomp filter (fd 3)", () => {
    const limited = {
      ...CONTEXT,
      pidsCgroup: "/sys/fs/cgroup/pids/odek",
      maxProcesses: 64,
      seccompFile: "/tmp/odek-seccomp-x/unix_sockets.bpf",
    };
    const { argv } = renderSandbox(set(), limited, PROGRAM);
    assert.deepEqual(argv.slice(3, 7), [
      "odek-sandbox",
      "/sys/fs/cgroup/pids/odek",
      "64",
      "/tmp/odek-seccomp-x/unix_sockets.bpf",
    ]);
    assert.equal(argv[7], "/usr/bin/bwrap");
    assert.deepEqual(argv.slice(argv.indexOf("--seccomp"), argv.indexOf("--seccomp") + 2), [
      "--seccomp",
      "3",
    ]);
    const tool = renderSandbox(set(), limited, TOOL).argv;
    assert.deepEqual(tool.slice(4, 6), ["", ""], "tool children (Deno threads) are not limited");
    assert.throws(() => renderSandbox(set(), { ...limited, maxProcesses: 2 }, PROGRAM), RangeError);
  });
  await t.step("every tmpfs has a size: /tmp and the home the cap, hiding ones 1 MiB", () => {
    const { argv } = renderSandbox(set(), { ...CONTEXT, tmpfsMaxBytes: 64 << 20 }, PROGRAM);
    const sizes = new Map<string, string>();
    argv.forEach((arg, i) => {
      if (arg !== "--tmpfs") return;
      assert.equal(argv[i - 2], "--size", `${argv[i + 1]} has no --size`);
      sizes.set(argv[i + 1], argv[i - 1]);
    });
    assert.deepEqual(Object.fromEntries(sizes), {
      "/tmp": String(64 << 20),
      "/run": String(1 << 20),
      "/home/u": String(64 << 20),
      "/home/u/.odek": String(1 << 20),
      "/opt/odek": String(1 << 20),
    });
    assert.throws(
      () => renderSandbox(set(), { ...CONTEXT, tmpfsMaxBytes: 1000 }, PROGRAM),
      RangeError,
    );
  });
  await t.step("proxy network policy stays offline until the egress proxy exists", () => {
    const { argv } = renderSandbox(
      set({ network: { type: "proxy", allowDomains: [] } }),
      CONTEXT,
      PROGRAM,
    );
    assert.ok(argv.includes("--unshare-net") && !argv.includes("--share-net"));
  });
  await t.step("mode none: the Deno flags alone / the bare program", () => {
    const none = { ...CONTEXT, mode: "none" as const };
    assert.equal(renderSandbox(set(), none, TOOL).argv[0], "/home/u/.deno/bin/deno");
    assert.deepEqual(renderSandbox(set(), none, PROGRAM).argv, ["bash", "-c", "echo hi"]);
  });
  await t.step("bwrap missing: a tool child keeps its Deno flags, a program is refused", () => {
    const missing = { ...CONTEXT, bwrapPath: null };
    const { argv } = renderSandbox(set(), missing, TOOL);
    assert.equal(argv[0], "/home/u/.deno/bin/deno");
    assert.ok(argv.includes(`--allow-read=${WS}`));
    assert.throws(
      () => renderSandbox(set(), missing, PROGRAM),
      (e) => e instanceof OdekError && e.code === "SANDBOX_UNAVAILABLE",
    );
  });
  await t.step("extra env is added but never replaces the base entries", () => {
    const { env } = renderSandbox(
      set(),
      { ...CONTEXT, extraEnv: { GIT_AUTHOR_NAME: "odek", PATH: "/evil", HOME: "/evil" } },
      PROGRAM,
    );
    assert.equal(env.GIT_AUTHOR_NAME, "odek");
    assert.equal(env.PATH, SANDBOX_PATH);
    assert.equal(env.HOME, "/home/u");
  });
  await t.step("workspace = install dir (odek working on itself): hidden, then bound back", () => {
    const { argv } = renderSandbox(
      set({ readPaths: ["/opt/odek"], writePaths: ["/opt/odek"] }),
      { ...CONTEXT, workspace: "/opt/odek" },
      TOOL,
    );
    const m = mounts(argv).map(([op, p]) => `${op} ${p}`);
    assert.ok(m.indexOf("--tmpfs /opt/odek") < m.indexOf("--bind /opt/odek"));
    assert.ok(m.indexOf("--bind /opt/odek") < m.indexOf("--ro-bind /opt/odek/tools"));
  });
  await t.step("run binaries become a scoped --allow-run", () => {
    const { argv } = renderSandbox(set({ runBinaries: ["/usr/bin/git"] }), CONTEXT, TOOL);
    assert.ok(argv.includes("--allow-run=/usr/bin/git"));
  });
});

Deno.test("renderSandbox() refuses paths and binaries it cannot render safely", async (t) => {
  const bad: [string, PermissionSet, Partial<SandboxContext>][] = [
    ["relative read path", set({ readPaths: ["ws"] }), {}],
    ["comma in a write path (Deno would split it)", set({ writePaths: ["/srv/a,/etc"] }), {}],
    ["non-normalized path", set({ writePaths: ["/srv/ws/../../etc"] }), {}],
    ["newline in a path", set({ readPaths: ["/srv/ws\n/etc"] }), {}],
    ["deno as a run binary", set({ runBinaries: ["/usr/local/bin/deno"] }), {}],
    ["the context's deno as a run binary", set({ runBinaries: ["/home/u/.deno/bin/deno"] }), {}],
    ["relative run binary", set({ runBinaries: ["git"] }), {}],
    ["/ as a write path", set({ writePaths: ["/"] }), {}],
    ["/ as the home", set(), { home: "/" }],
    ["relative workspace", set(), { workspace: "ws" }],
  ];
  for (const [name, s, ctx] of bad) {
    await t.step(name, () => {
      assert.throws(() => renderSandbox(s, { ...CONTEXT, ...ctx }, TOOL), RangeError);
    });
  }
});

Deno.test("renderSandbox() never emits an escape, over its whole output space", () => {
  const pathPool = [WS, "/home/u/.bashrc", "/srv/ws/sub", "/srv"];
  const binaryPool = [[], ["/usr/bin/git"], ["/usr/bin/git", "/usr/bin/make"], ["/usr/bin/deno"]];
  const subsets = (xs: string[]) =>
    xs.reduce<string[][]>((acc, x) => [...acc, ...acc.map((s) => [...s, x])], [[]]);
  const contexts: SandboxContext[] = [
    CONTEXT,
    { ...CONTEXT, mode: "none" },
    { ...CONTEXT, bwrapPath: null },
    { ...CONTEXT, workspace: "/opt/odek" },
    { ...CONTEXT, protectedRoots: [], readOnlyHomeFiles: [], extraEnv: { A: "1" } },
  ];
  const allowedEnv = new Set([...Object.keys(renderSandbox(set(), CONTEXT, TOOL).env), "A"]);
  let rendered = 0;
  for (const context of contexts) {
    for (const readPaths of subsets(pathPool)) {
      for (const writePaths of subsets(pathPool)) {
        for (
          const network of [{ type: "none" as const }, {
            type: "proxy" as const,
            allowDomains: ["x.org"],
          }]
        ) {
          for (const runBinaries of binaryPool) {
            for (const command of [TOOL, PROGRAM]) {
              const s = set({ readPaths, writePaths, network, runBinaries });
              const call = (): RenderedSandbox => renderSandbox(s, context, command);
              if (
                context.bwrapPath === null && context.mode === "bwrap" && command.kind === "program"
              ) {
                assert.throws(call, OdekError);
                continue;
              }
              if (command.kind === "tool_child" && runBinaries.includes("/usr/bin/deno")) {
                assert.throws(call, RangeError);
                continue;
              }
              const { argv, env }: RenderedSandbox = call();
              rendered++;
              for (const arg of argv) {
                assert.ok(!["-A", "--allow-all", "--share-net"].includes(arg), arg);
                assert.ok(!/^--allow-(ffi|net|env|sys|import|all|hrtime)/.test(arg), arg);
                if (arg.startsWith("--allow-")) {
                  assert.match(arg, /^--allow-(read|write|run)=\/[^=]*[^=,]$/);
                }
                if (arg.startsWith("--allow-run")) assert.ok(!/deno/.test(arg), arg);
              }
              const allowWrite: string | undefined = argv.find((a: string) =>
                a.startsWith("--allow-write=")
              );
              const expectedWrites = [...new Set(writePaths)].sort().join(",");
              if (command.kind === "tool_child") {
                assert.equal(
                  allowWrite?.slice("--allow-write=".length),
                  expectedWrites || undefined,
                );
                assert.ok(argv.some((a: string) => a.startsWith(`--allow-read=`)));
              } else {
                assert.equal(allowWrite, undefined);
              }
              for (const key of Object.keys(env)) assert.ok(allowedEnv.has(key), key);
              if (argv[0] !== "/usr/bin/bwrap") continue;
              for (
                const flag of [
                  "--die-with-parent",
                  "--new-session",
                  "--unshare-all",
                  "--unshare-net",
                ]
              ) {
                assert.ok(argv.includes(flag), flag);
              }
              assert.equal(argv[argv.indexOf("--cap-drop") + 1], "ALL");
              const m = mounts(argv);
              for (const root of [...context.protectedRoots, "/tmp", "/home/u"]) {
                assert.ok(m.some(([op, p]) => op === "--tmpfs" && p === root), root);
              }
              for (let i = 0; i < m.length; i++) {
                for (let j = i + 1; j < m.length; j++) {
                  assert.ok(
                    !m[i][1].startsWith(`${m[j][1]}/`),
                    `${m[j][1]} mounted after ${m[i][1]}`,
                  );
                }
              }
              for (const w of writePaths) {
                assert.ok(m.some(([op, p]) => op === "--bind" && p === w), w);
              }
            }
          }
        }
      }
    }
  }
  assert.ok(rendered > 10_000, `only ${rendered} renderings checked`);
});
