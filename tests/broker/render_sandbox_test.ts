import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import {
  EGRESS_SOCKET_IN_SANDBOX,
  type RenderedSandbox,
  renderSandbox,
  SANDBOX_LAUNCHER,
  SANDBOX_PATH,
  type SandboxCommand,
  type SandboxContext,
} from "../../src/broker/render_sandbox.ts";
import { CLOSE_DESCRIPTORS, SANDBOX_CHECK } from "../../src/broker/_sandbox_check.ts";
import {
  CACHE_FILES,
  CACHE_OPENER,
  SANDBOX_DENO_DIR,
} from "../../src/broker/tool_child_deno_dir.ts";

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
const SOCKET = "/tmp/odek-egress-x/proxy.sock";
const PROGRAM_ARGV = ["bash", "-c", "echo hi"];
const TOOL: SandboxCommand = { kind: "tool_child", entry: "/opt/odek/tools/files.ts" };
const PROGRAM: SandboxCommand = { kind: "program", argv: PROGRAM_ARGV };
const COMMANDS: readonly SandboxCommand[] = [TOOL, PROGRAM];

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

/**
 * What runs inside the sandbox after bwrap's `--`: the mount check's arguments and the program.
 * Every sandboxed argv starts there with the check (`_sandbox_check.ts`).
 */
function inside(
  argv: string[],
): { checks: string[][]; cwd: string[]; netns: string; program: string[] } {
  const rest = argv.slice(argv.indexOf("--", argv.indexOf("--chdir")) + 1);
  assert.deepEqual(rest.slice(0, 4), ["/bin/bash", "-c", SANDBOX_CHECK, "odek-check"]);
  const n = Number(rest[4]);
  const checks: string[][] = [];
  for (let i = 0; i < n; i++) checks.push(rest.slice(5 + 4 * i, 9 + 4 * i));
  return {
    checks,
    cwd: rest.slice(5 + 4 * n, 7 + 4 * n),
    netns: rest[7 + 4 * n],
    program: rest.slice(8 + 4 * n),
  };
}

/** The [op, path] mount operations of a bwrap argv, in order. */
function mounts(argv: string[]): [string, string][] {
  const out: [string, string][] = [];
  // From bwrap on (a program joining its host's network namespace starts with nsenter … --).
  for (
    let i = Math.max(0, argv.indexOf("/usr/bin/bwrap"));
    i < argv.length && argv[i] !== "--";
    i++
  ) {
    const op = argv[i];
    if (["--tmpfs", "--dev", "--proc"].includes(op)) out.push([op, argv[++i]]);
    else if (/^--(ro-)?bind(-try)?$/.test(op)) {
      if (argv[i + 2] !== EGRESS_SOCKET_IN_SANDBOX) {
        assert.equal(argv[i + 1], argv[i + 2], `${op} binds ${argv[i + 1]} at its own path`);
      } else assert.equal(argv[i + 1], SOCKET, "only the egress socket is bound elsewhere");
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
    assert.deepEqual(argv.slice(0, 8), [
      "/bin/sh",
      "-c",
      `${CACHE_OPENER}\n${SANDBOX_LAUNCHER}`, // its cache files are opened first (see below)
      "odek-sandbox",
      "/opt/odek/tools/.deno_cache/files",
      "", // a tool child gets no process limit
      "",
      "", // this context has no seccomp filter
    ]);
    assert.ok(!argv.includes("--seccomp"));
    assert.deepEqual(argv.slice(8, 19), [
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
      ["--tmpfs", "/dev/shm"],
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
      ["--ro-bind", "/home/u/.deno/bin/deno"],
    ]);
    assert.deepEqual(argv.slice(sep - 2, sep + 1), ["--chdir", WS, "--"]);
    // This context pins nothing (no `pin`): no mount is checked, the descriptors are closed.
    assert.deepEqual(inside(argv).checks, []);
    assert.deepEqual(inside(argv).cwd, [WS, ""]);
    // Its own Deno cache (inside the tools, read-only), not the user's: its SQLite files are
    // copied by bwrap (from descriptors its launcher opened) into a DENO_DIR in its private
    // /tmp, with the transpiled modules linked there; deno is the sandbox's program.
    const cache = "/opt/odek/tools/.deno_cache/files";
    assert.deepEqual(inside(argv).program, [
      "/home/u/.deno/bin/deno",
      "run",
      "--no-prompt",
      "--no-remote",
      "--cached-only",
      "--config",
      "/opt/odek/tools/deno.json",
      "--node-modules-dir=manual",
      "--no-lock",
      "--v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks",
      `--allow-read=${WS}`,
      "/opt/odek/tools/files.ts",
    ]);
    const dir = argv.indexOf("--dir");
    assert.deepEqual(argv.slice(dir, dir + 14), [
      "--dir",
      SANDBOX_DENO_DIR,
      "--symlink",
      `${cache}/gen`,
      `${SANDBOX_DENO_DIR}/gen`,
      ...CACHE_FILES.flatMap((name, i) => ["--file", String(i + 4), `${SANDBOX_DENO_DIR}/${name}`]),
    ]);
    assert.ok(dir > argv.lastIndexOf("/tmp") && dir < sep, "after the private /tmp");
    assert.deepEqual(env, {
      PATH: SANDBOX_PATH,
      HOME: "/home/u",
      PWD: WS,
      OLDPWD: WS,
      LANG: "C.UTF-8",
      TMPDIR: "/tmp",
      NO_COLOR: "1",
      DENO_DIR: SANDBOX_DENO_DIR,
    });
    // Without bwrap the child uses its cache in place; a module-tool child keeps the user's.
    const bare = renderSandbox(set(), { ...CONTEXT, mode: "none" }, TOOL);
    assert.equal(bare.env.DENO_DIR, cache);
    assert.ok(!bare.argv.some((arg) => arg.includes(CACHE_OPENER)));
    assert.ok(!bare.argv.includes("--file"));
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
  await t.step(
    "program: no Deno flags, no tools, the deno binary read-only, the argv as given",
    () => {
      const { argv, env } = renderSandbox(set({ writePaths: [WS] }), CONTEXT, PROGRAM);
      assert.deepEqual(inside(argv).program, ["bash", "-c", "echo hi"]);
      assert.ok(!argv.some((a) => a.startsWith("--allow-")));
      // Only the binary itself: `deno` on PATH works, DENO_DIR and the tools stay out.
      assert.deepEqual(argv.filter((a) => a.includes("deno")), [
        CONTEXT.denoPath,
        CONTEXT.denoPath,
      ]);
      assert.ok(mounts(argv).some(([op, p]) => op === "--ro-bind" && p === CONTEXT.denoPath));
      assert.ok(!mounts(argv).some(([, p]) => p === "/opt/odek/tools"));
      assert.equal(env.DENO_DIR, undefined);
    },
  );
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
    assert.deepEqual(tool.slice(5, 7), ["", ""], "tool children (Deno threads) are not limited");
    // A scope with approved network reaches the proxy's Unix socket: its filter allows them.
    const both = {
      ...limited,
      egressSocket: "/tmp/odek-egress-x/proxy.sock",
      seccompEgressFile: "/tmp/odek-seccomp-x/egress.bpf",
    };
    const online = { ...set(), network: { type: "proxy" as const, allowDomains: [] } };
    assert.equal(renderSandbox(online, both, PROGRAM).argv[6], "/tmp/odek-seccomp-x/egress.bpf");
    assert.equal(
      renderSandbox(set(), both, PROGRAM).argv[6],
      "/tmp/odek-seccomp-x/unix_sockets.bpf",
    );
    assert.throws(() => renderSandbox(set(), { ...limited, maxProcesses: 2 }, PROGRAM), RangeError);
  });
  await t.step("every tmpfs has a size: the home the cap, hiding ones 1 MiB", () => {
    // Without a seccomp filter a program could connect to a socket file: /tmp is an empty
    // read-only tmpfs then (1 MiB), not the host's /tmp.
    const { argv } = renderSandbox(set(), { ...CONTEXT, tmpfsMaxBytes: 64 << 20 }, PROGRAM);
    const sizes = new Map<string, string>();
    argv.forEach((arg, i) => {
      if (arg !== "--tmpfs") return;
      assert.equal(argv[i - 2], "--size", `${argv[i + 1]} has no --size`);
      sizes.set(argv[i + 1], argv[i - 1]);
    });
    assert.deepEqual(Object.fromEntries(sizes), {
      "/dev/shm": String(64 << 20),
      "/tmp": String(1 << 20),
      "/run": String(1 << 20),
      "/home/u": String(64 << 20),
      "/home/u/.odek": String(1 << 20),
      "/opt/odek": String(1 << 20),
    });
    assert.throws(
      () => renderSandbox(set(), { ...CONTEXT, tmpfsMaxBytes: 1000 }, PROGRAM),
      RangeError,
    );
    const tool = renderSandbox(set(), { ...CONTEXT, tmpfsMaxBytes: 64 << 20 }, TOOL).argv;
    assert.equal(tool[tool.indexOf("/tmp") - 2], String(64 << 20), "a tool child's private /tmp");
  });
  await t.step("proxy network policy stays offline until the egress proxy exists", () => {
    const { argv } = renderSandbox(
      set({ network: { type: "proxy", allowDomains: [] } }),
      CONTEXT,
      PROGRAM,
    );
    assert.ok(argv.includes("--unshare-net") && !argv.includes("--share-net"));
    assert.ok(!argv.some((a) => a.includes("egress")));
  });
  const egress = { ...CONTEXT, egressSocket: SOCKET };
  const online = set({ network: { type: "proxy", allowDomains: [] } });
  await t.step(
    "program with network: the socket, deno and the forwarder, then the launcher",
    () => {
      const { argv, env } = renderSandbox(online, egress, PROGRAM);
      assert.ok(argv.includes("--unshare-net") && !argv.includes("--share-net"));
      const m = mounts(argv);
      assert.ok(m.some(([op, p]) => op === "--tmpfs" && p === "/tmp/odek-egress-x"));
      assert.ok(m.some(([op, p]) => op === "--ro-bind" && p === EGRESS_SOCKET_IN_SANDBOX));
      assert.ok(
        m.some(([op, p]) => op === "--ro-bind" && p === "/opt/odek/tools/egress_forwarder.ts"),
      );
      assert.ok(m.some(([op, p]) => op === "--ro-bind" && p === CONTEXT.denoPath));
      const inner = inside(argv).program;
      assert.deepEqual(inner.slice(0, 2), ["bash", "-c"]);
      assert.equal(inner[3], "odek-egress");
      const n = Number(inner[4]);
      const forwarder = inner.slice(5, 5 + n);
      assert.deepEqual(forwarder, [
        CONTEXT.denoPath,
        "run",
        "--no-prompt",
        "--no-remote",
        "--no-config",
        "--no-lock",
        `--allow-net=127.0.0.1,unix:${EGRESS_SOCKET_IN_SANDBOX}`,
        `--allow-read=${EGRESS_SOCKET_IN_SANDBOX}`,
        `--allow-write=${EGRESS_SOCKET_IN_SANDBOX}`,
        "/opt/odek/tools/egress_forwarder.ts",
        EGRESS_SOCKET_IN_SANDBOX,
      ]);
      assert.deepEqual(inner.slice(5 + n), ["bash", "-c", "echo hi"]);
      assert.ok(!argv.some((a) => a.startsWith("--egress-socket")));
      assert.deepEqual(
        Object.keys(env).sort(),
        Object.keys(renderSandbox(set(), CONTEXT, PROGRAM).env).sort(),
      );
    },
  );
  await t.step("tool child with network: --allow-net, the socket readable and writable", () => {
    const { argv, env } = renderSandbox(online, egress, TOOL);
    assert.ok(argv.includes("--allow-net"));
    assert.ok(argv.includes(`--allow-read=${WS},${EGRESS_SOCKET_IN_SANDBOX}`));
    assert.ok(argv.includes(`--allow-write=${EGRESS_SOCKET_IN_SANDBOX}`));
    assert.equal(argv.at(-1), `--egress-socket=${EGRESS_SOCKET_IN_SANDBOX}`);
    assert.equal(argv.at(-2), TOOL.kind === "tool_child" ? TOOL.entry : "");
    assert.equal(env.ODEK_EGRESS_SOCKET, undefined);
    const none = renderSandbox(online, { ...egress, bwrapPath: null }, TOOL);
    assert.ok(none.argv.includes(`--allow-write=${SOCKET}`));
    assert.equal(none.argv.at(-1), `--egress-socket=${SOCKET}`);
  });
  await t.step("without network the socket's directory is hidden and nothing else changes", () => {
    for (const command of [TOOL, PROGRAM]) {
      const plain = renderSandbox(set(), CONTEXT, command).argv;
      const { argv } = renderSandbox(set(), egress, command);
      assert.ok(!argv.some((a) => a.startsWith("--allow-net") || a === EGRESS_SOCKET_IN_SANDBOX));
      const at = argv.indexOf("/tmp/odek-egress-x");
      assert.equal(argv[at - 1], "--tmpfs");
      assert.equal(argv[at - 3], "--size"); // a hiding tmpfs is capped at 1 MiB
      assert.deepEqual([...argv.slice(0, at - 3), ...argv.slice(at + 1)], plain);
    }
  });
  await t.step("mode none: the Deno flags alone / the bare program", () => {
    const none = { ...CONTEXT, mode: "none" as const };
    // Unconfined, only the inherited descriptors are closed before the program.
    const closer = ["/bin/bash", "-c", CLOSE_DESCRIPTORS, "odek-fds"];
    assert.deepEqual(renderSandbox(set(), none, TOOL).argv.slice(0, 5), [
      ...closer,
      "/home/u/.deno/bin/deno",
    ]);
    assert.deepEqual(renderSandbox(set(), none, PROGRAM).argv, [
      ...closer,
      "bash",
      "-c",
      "echo hi",
    ]);
  });
  await t.step("bwrap missing: a tool child keeps its Deno flags, a program is refused", () => {
    const missing = { ...CONTEXT, bwrapPath: null };
    const { argv } = renderSandbox(set(), missing, TOOL);
    assert.deepEqual(argv.slice(3, 5), ["odek-fds", "/home/u/.deno/bin/deno"]);
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

Deno.test("renderSandbox() pins every bind and hands each to the check inside the sandbox", async (t) => {
  // A fake pin: every path exists as "<length>:<index>" but the ones listed as missing.
  const missing = new Set(["/home/u/.gitconfig"]);
  const seen: string[] = [];
  const pinned: SandboxContext = {
    ...CONTEXT,
    egressSocket: SOCKET,
    pin: (path) => {
      seen.push(path);
      if (missing.has(path)) return null;
      return { path, dev: path.length, ino: seen.length, type: "directory" };
    },
  };
  const online = set({ network: { type: "proxy", allowDomains: [] }, writePaths: [WS] });
  await t.step("a program: deno, the workspace, the socket and the forwarder", () => {
    seen.length = 0;
    const { argv } = renderSandbox(online, pinned, PROGRAM);
    const { checks, cwd } = inside(argv);
    const dests = checks.map(([dest, source, mode]) => `${mode} ${dest} <- ${source}`);
    assert.deepEqual(dests.sort(), [
      "ro /home/u/.deno/bin/deno <- /home/u/.deno/bin/deno",
      "ro /opt/odek/tools/egress_forwarder.ts <- /opt/odek/tools/egress_forwarder.ts",
      `ro ${EGRESS_SOCKET_IN_SANDBOX} <- ${SOCKET}`,
      `rw ${WS} <- ${WS}`,
    ]);
    for (const [, source, , pin] of checks) {
      assert.equal(pin, `${source.length}:${seen.indexOf(source) + 1}`, `${source} is pinned`);
    }
    assert.deepEqual(cwd, [WS, `${WS.length}:${seen.lastIndexOf(WS) + 1}`], "the cwd is pinned");
    // A missing optional file (`--ro-bind-try`) is not bound at all; the others lose `-try`.
    assert.ok(!argv.includes("/home/u/.gitconfig"));
    assert.ok(!mounts(argv).some(([op, p]) => op.endsWith("-try") && !p.startsWith("/proc/")));
  });
  await t.step("a tool child: its tools (its DENO_DIR inside); the compute child its own", () => {
    const { checks } = inside(renderSandbox(set(), pinned, TOOL).argv);
    assert.deepEqual(checks.map(([dest, , mode]) => `${mode} ${dest}`).sort(), [
      "ro /home/u/.deno/bin/deno",
      "ro /opt/odek/tools",
      `ro ${WS}`,
    ]);
    const isolated = renderSandbox(
      { ...set(), readPaths: [] },
      pinned,
      { ...TOOL, permissions: "none" },
    );
    const { checks: own, cwd } = inside(isolated.argv);
    assert.deepEqual(own.map(([dest]) => dest).sort(), [
      "/home/u/.deno/bin/deno",
      "/opt/odek/tools",
    ]);
    assert.deepEqual(cwd, ["", ""], "the compute child starts in / and mounts no workspace");
  });
  await t.step("a source that is gone when it is pinned refuses the whole sandbox", () => {
    missing.add(WS);
    try {
      assert.throws(
        () => renderSandbox(online, pinned, PROGRAM),
        (e) => e instanceof OdekError && e.code === "PATH_CHANGED" && e.message.includes(WS),
      );
    } finally {
      missing.delete(WS);
    }
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
  const shared: Partial<SandboxContext> = {
    seccompFile: "/var/lib/odek/f.bpf",
    scratchRoot: "/tmp/odek-0",
    scratchDir: "/tmp/odek-0/host-x/tmp",
    netns: { enter: ["/usr/bin/nsenter", "--net=/proc/42/ns/net", "--"], ino: "4026532178" },
  };
  const contexts: SandboxContext[] = [
    CONTEXT,
    { ...CONTEXT, mode: "none" },
    { ...CONTEXT, bwrapPath: null },
    { ...CONTEXT, workspace: "/opt/odek" },
    { ...CONTEXT, protectedRoots: [], readOnlyHomeFiles: [], extraEnv: { A: "1" } },
    { ...CONTEXT, egressSocket: SOCKET },
    { ...CONTEXT, egressSocket: SOCKET, mode: "none" },
    { ...CONTEXT, egressSocket: SOCKET, bwrapPath: null },
    { ...CONTEXT, ...shared },
    { ...CONTEXT, ...shared, egressSocket: SOCKET },
  ];
  const allowedEnv = new Set([
    ...Object.keys(renderSandbox(set(), CONTEXT, TOOL).env),
    ...Object.keys(renderSandbox(set(), CONTEXT, PROGRAM).env),
    "A",
  ]);
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
            for (const command of COMMANDS) {
              const s = set({
                readPaths,
                writePaths,
                network,
                runBinaries,
                ...(writePaths.includes(WS) ? { readOnlyPaths: [`${WS}/.git/config`] } : {}),
              });
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
              const egress = network.type === "proxy" && context.egressSocket !== undefined;
              const sandboxed = context.mode === "bwrap" && context.bwrapPath !== null;
              const socket = sandboxed ? EGRESS_SOCKET_IN_SANDBOX : SOCKET;
              // The forwarder's own flags (a program granted network, in bwrap) come first.
              const start: number = argv.indexOf("odek-egress");
              const forwarder: string[] = start < 0
                ? []
                : argv.slice(start + 2, start + 2 + +argv[start + 1]);
              assert.equal(start >= 0, egress && sandboxed && command.kind === "program");
              if (start >= 0) {
                assert.deepEqual(forwarder.filter((a) => a.startsWith("--allow")), [
                  `--allow-net=127.0.0.1,unix:${socket}`,
                  `--allow-read=${socket}`,
                  `--allow-write=${socket}`,
                ]);
              }
              const joins = context.netns !== undefined && command.kind === "program" &&
                sandboxed;
              assert.equal(argv[0] === "/usr/bin/nsenter", joins, "only programs join a netns");
              for (const arg of argv.filter((a) => !forwarder.includes(a))) {
                assert.ok(!["-A", "--allow-all"].includes(arg), arg);
                if (arg === "--share-net") assert.ok(joins, "--share-net only inside a netns");
                assert.ok(!/^--allow-(ffi|env|sys|import|all|hrtime)/.test(arg), arg);
                if (arg.startsWith("--allow-net")) {
                  assert.ok(egress && command.kind === "tool_child" && arg === "--allow-net", arg);
                } else if (arg.startsWith("--allow-")) {
                  assert.match(arg, /^--allow-(read|write|run)=\/[^=]*[^=,]$/);
                }
                if (arg.startsWith("--allow-run")) assert.ok(!/deno/.test(arg), arg);
              }
              assert.equal(argv.includes("--allow-net"), egress && command.kind === "tool_child");
              const allowWrite: string | undefined = argv.find((a: string) =>
                a.startsWith("--allow-write=")
              );
              const sock = egress && command.kind === "tool_child" ? [socket] : [];
              const expectedWrites = [...[...new Set(writePaths)].sort(), ...sock].join(",");
              if (command.kind === "tool_child") {
                assert.equal(
                  allowWrite?.slice("--allow-write=".length),
                  expectedWrites || undefined,
                );
                assert.ok(argv.some((a: string) => a.startsWith(`--allow-read=`)));
              } else {
                assert.equal(argv.find((a) => a.startsWith("--allow-write=/srv")), undefined);
                assert.equal(allowWrite, start >= 0 ? `--allow-write=${socket}` : undefined);
              }
              for (const key of Object.keys(env)) assert.ok(allowedEnv.has(key), key);
              if (!argv.includes("/usr/bin/bwrap")) continue;
              for (
                const flag of [
                  "--die-with-parent",
                  "--new-session",
                  "--unshare-all",
                  joins ? "--share-net" : "--unshare-net",
                ]
              ) {
                assert.ok(argv.includes(flag), flag);
              }
              assert.equal(argv[argv.indexOf("--cap-drop") + 1], "ALL");
              if (joins) assert.equal(inside(argv).netns, "4026532178", "the netns is checked");
              const m = mounts(argv);
              // /tmp is private for tool children; for programs the host's (read-only), or an
              // empty read-only one where Unix sockets are allowed.
              const privateTmp = command.kind === "tool_child" || egress || !context.seccompFile;
              const hidden = [
                ...context.protectedRoots,
                "/home/u",
                ...(privateTmp ? ["/tmp"] : []),
              ];
              for (const root of hidden) {
                assert.ok(m.some(([op, p]) => op === "--tmpfs" && p === root), root);
              }
              if (!privateTmp) assert.ok(!m.some(([op, p]) => op === "--tmpfs" && p === "/tmp"));
              if (command.kind === "program" && privateTmp) {
                // Empty and read-only: a write there fails instead of vanishing.
                assert.ok(argv.some((a, i) => a === "/tmp" && argv[i - 1] === "--remount-ro"));
              }
              if (context.scratchRoot && command.kind === "program") {
                assert.ok(m.some(([op, p]) => op === "--bind" && p === context.scratchDir));
                assert.equal(env.TMPDIR, context.scratchDir);
              }
              // Protected files stay read-only over a writable workspace.
              if (writePaths.includes(WS)) {
                const at = m.findIndex(([, p]) => p === `${WS}/.git/config`);
                assert.ok(at >= 0 && m[at][0].startsWith("--ro-bind"), ".git/config read-only");
              }
              for (let i = 0; i < m.length; i++) {
                for (let j = i + 1; j < m.length; j++) {
                  assert.ok(
                    !m[i][1].startsWith(`${m[j][1]}/`),
                    `${m[j][1]} mounted after ${m[i][1]}`,
                  );
                }
              }
              // Every write path is writable: the deepest mount at or above it is a --bind.
              for (const w of writePaths) {
                const above = m.filter(([, p]) => p === w || w.startsWith(`${p}/`));
                assert.equal(above.at(-1)?.[0], "--bind", w);
              }
            }
          }
        }
      }
    }
  }
  assert.ok(rendered > 10_000, `only ${rendered} renderings checked`);
});

Deno.test("renderSandbox() gives a tool child without permissions no flag, no workspace and / as cwd", async (t) => {
  const compute: SandboxCommand = {
    kind: "tool_child",
    entry: "/opt/odek/tools/compute.ts",
    permissions: "none",
  };
  const nothing = set({ readPaths: [] });
  for (const context of [CONTEXT, { ...CONTEXT, mode: "none" as const }]) {
    await t.step(`mode ${context.mode}`, () => {
      const { argv, env } = renderSandbox(nothing, context, compute);
      assert.deepEqual(argv.filter((a) => a.startsWith("--allow-")), []);
      assert.ok(argv.includes("--v8-flags=--max-old-space-size=512"));
      assert.ok(!argv.some((a) => a.startsWith(WS)), "the workspace is not named");
      assert.equal(env.PWD, "/");
      assert.equal(argv.at(-1), "/opt/odek/tools/compute.ts");
      if (context.mode === "bwrap") {
        assert.equal(argv[argv.indexOf("--chdir") + 1], "/");
        const bound = mounts(argv).map(([, p]) => p);
        assert.ok(bound.includes("/opt/odek/tools") && !bound.includes(WS));
      }
    });
  }
  await t.step("a set that grants anything is refused", () => {
    for (
      const grant of [
        { readPaths: [WS] },
        { readPaths: [], writePaths: [WS] },
        { readPaths: [], runBinaries: ["/usr/bin/git"] },
        { readPaths: [], envNames: ["HOME"] },
        { readPaths: [], network: { type: "proxy" as const, allowDomains: [] } },
      ]
    ) {
      assert.throws(() => renderSandbox(set(grant), CONTEXT, compute), RangeError);
    }
  });
});
