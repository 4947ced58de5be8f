import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import { DOCKER_PIDS_LIMIT, renderDockerRun } from "../../src/broker/render_docker.ts";
import type { SandboxContext } from "../../src/broker/render_sandbox.ts";
import { runShell } from "../../src/broker/run_shell.ts";

const CONTEXT: SandboxContext = {
  mode: "docker",
  bwrapPath: null,
  dockerPath: "/usr/bin/docker",
  dockerImage: "odek:latest",
  denoPath: "/usr/bin/deno",
  denoDir: "/home/u/.cache/deno",
  toolsDir: "/opt/odek/tools",
  workspace: "/srv/ws",
  home: "/home/u",
  odekHome: "/home/u/.odek",
  installDir: "/opt/odek",
  protectedRoots: ["/home/u/.odek", "/opt/odek"],
  readOnlyHomeFiles: ["/home/u/.gitconfig"],
  extraEnv: { FOO: "bar" },
  dockerEnv: { DOCKER_HOST: "unix:///run/user/1000/docker.sock" },
};

function set(writePaths: string[], readPaths = ["/srv/ws"]): PermissionSet {
  return { readPaths, writePaths, network: { type: "none" }, runBinaries: [], envNames: [] };
}

const OPTIONS = { name: "odek-test", uid: 1000, gid: 1001 };

/** The values following each occurrence of `flag`. */
function values(argv: string[], flag: string): string[] {
  return argv.flatMap((arg, i) => (arg === flag ? [argv[i + 1]] : []));
}

Deno.test("renderDockerRun() builds a container with no network, no capabilities, the user mapped and the workspace mounted", () => {
  const { argv, env } = renderDockerRun(set([]), CONTEXT, ["bash", "-c", "ls"], OPTIONS);
  assert.deepEqual(argv.slice(0, 4), ["/usr/bin/docker", "run", "--rm", "-i"]);
  assert.deepEqual(values(argv, "--network"), ["none"]);
  assert.deepEqual(values(argv, "--cap-drop"), ["ALL"]);
  assert.deepEqual(values(argv, "--security-opt"), ["no-new-privileges"]);
  assert.deepEqual(values(argv, "--pids-limit"), [String(DOCKER_PIDS_LIMIT)]);
  assert.deepEqual(values(argv, "--user"), ["1000:1001"]);
  assert.deepEqual(values(argv, "--name"), ["odek-test"]);
  assert.ok(argv.includes("--read-only") && argv.includes("--init"));
  assert.deepEqual(values(argv, "--tmpfs"), ["/home/u:rw,exec,mode=1777"]);
  assert.deepEqual(values(argv, "-w"), ["/srv/ws"]);
  assert.deepEqual(argv.slice(-4), ["odek:latest", "bash", "-c", "ls"]);
  assert.deepEqual(values(argv, "--mount"), [
    "type=bind,source=/tmp,target=/tmp,readonly",
    "type=bind,source=/home/u/.gitconfig,target=/home/u/.gitconfig,readonly",
    "type=bind,source=/srv/ws,target=/srv/ws,readonly",
  ]);
  const inner = Object.fromEntries(values(argv, "-e").map((e) => e.split(/=(.*)/s).slice(0, 2)));
  assert.equal(inner.PWD, "/srv/ws");
  assert.equal(inner.OLDPWD, "/srv/ws");
  assert.equal(inner.HOME, "/home/u");
  assert.equal(inner.FOO, "bar");
  assert.deepEqual(env, {
    PATH: env.PATH,
    HOME: "/home/u",
    DOCKER_HOST: "unix:///run/user/1000/docker.sock",
  });
});

Deno.test("renderDockerRun() binds exactly the set's paths, writable only where the set writes, and never odek's own directories", () => {
  const { argv } = renderDockerRun(
    set(["/srv/ws", "/home/u/.newrc"], ["/srv/ws", "/srv/ref"]),
    CONTEXT,
    ["true"],
    OPTIONS,
  );
  const mounts = values(argv, "--mount");
  assert.ok(mounts.includes("type=bind,source=/srv/ws,target=/srv/ws"));
  assert.ok(mounts.includes("type=bind,source=/srv/ref,target=/srv/ref,readonly"));
  assert.ok(mounts.includes("type=bind,source=/home/u/.newrc,target=/home/u/.newrc"));
  assert.equal(argv.includes("-v"), false, "-v creates a missing source directory");
  assert.equal(argv.some((a) => a.includes("/home/u/.odek") || a.includes("/opt/odek")), false);
  assert.equal(argv.some((a) => /privileged|--network=host|host/.test(a)), false);
});

Deno.test("renderDockerRun() refuses paths it cannot mount safely and a context without a client", () => {
  for (const bad of ["relative", "/a,b", "/a/../b", "/a\nb"]) {
    assert.throws(() => renderDockerRun(set([bad]), CONTEXT, ["true"], OPTIONS), RangeError);
  }
  assert.throws(
    () => renderDockerRun(set([]), { ...CONTEXT, dockerPath: null }, ["true"], OPTIONS),
    RangeError,
  );
});

Deno.test("runShell() in docker mode without a docker client refuses as data, with what to do", async () => {
  const result = await runShell("echo hi", {
    set: set([]),
    context: { ...CONTEXT, dockerPath: null },
    timeoutMs: 5_000,
  });
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.error.kind === "sandbox_unavailable");
  assert.match(!result.ok ? result.error.message : "", /docker client is not installed.*"bwrap"/);
});

const docker = ["/usr/bin/docker", "/usr/local/bin/docker"].find((p) => {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
});
const engine = docker === undefined ? false : (await new Deno.Command(docker, {
  args: ["version", "--format", "{{.Server.Version}}"],
  stdout: "null",
  stderr: "null",
}).output().catch(() => ({ success: false }))).success;
if (!engine) {
  console.error(
    `skipping docker engine tests: ${
      docker ? "no docker engine answers (start dockerd)" : "docker is not installed"
    }; build the image with: docker build -f Dockerfile.odek -t odek .`,
  );
}

Deno.test({
  name:
    "runShell() in docker mode with a client but no engine fails as data with the client's error",
  ignore: docker === undefined || engine,
  fn: async () => {
    const ws = await Deno.realPath(await Deno.makeTempDir());
    try {
      const result = await runShell("echo hi", {
        set: set([], [ws]),
        context: { ...CONTEXT, dockerPath: docker!, workspace: ws, readOnlyHomeFiles: [] },
        timeoutMs: 20_000,
      });
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.error.kind === "failed", JSON.stringify(result));
      assert.match(!result.ok ? result.error.message : "", /docker|daemon/i);
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test({
  name: "runShell() in docker mode runs in the workspace with no network (needs a docker engine)",
  ignore: !engine,
  fn: async () => {
    const ws = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp" }));
    try {
      const result = await runShell(
        'pwd; echo "$PWD $OLDPWD"; echo made > out.txt; tail -n +3 /proc/net/dev | cut -d: -f1',
        {
          set: set([ws], [ws]),
          context: { ...CONTEXT, dockerPath: docker!, workspace: ws, readOnlyHomeFiles: [] },
          timeoutMs: 60_000,
        },
      );
      assert.ok(result.ok, JSON.stringify(result));
      assert.match(result.ok ? result.output : "", new RegExp(`${ws}\\n${ws} ${ws}\\n\\s*lo\\n`));
      assert.equal(await Deno.readTextFile(join(ws, "out.txt")), "made\n");
    } finally {
      await Deno.remove(ws, { recursive: true });
    }
  },
});

Deno.test("renderDockerRun() mounts no write path that a writable parent already covers (it may not exist yet)", () => {
  const { argv } = renderDockerRun(
    set(["/srv/ws", "/srv/ws/build/out"], ["/srv/ws"]),
    CONTEXT,
    ["true"],
    OPTIONS,
  );
  const mounts = values(argv, "--mount");
  assert.ok(mounts.includes("type=bind,source=/srv/ws,target=/srv/ws"));
  assert.equal(mounts.some((m) => m.includes("/srv/ws/build")), false);
  const home = renderDockerRun(set(["/home", "/home/u/.newrc"]), CONTEXT, ["true"], OPTIONS);
  assert.ok(
    values(home.argv, "--mount").includes("type=bind,source=/home/u/.newrc,target=/home/u/.newrc"),
    "a target under the home tmpfs must keep its own mount",
  );
});

Deno.test("renderDockerRun() shows the host's /tmp read-only, the host's scratch as TMPDIR, and protected files read-only", () => {
  const context = {
    ...CONTEXT,
    scratchRoot: "/tmp/odek-1000",
    scratchDir: "/tmp/odek-1000/host-x/tmp",
  };
  const { argv } = renderDockerRun(
    { ...set(["/srv/ws"]), readOnlyPaths: ["/srv/ws/.git/config", "/srv/ws/.envrc"] },
    context,
    ["true"],
    OPTIONS,
  );
  const mounts = values(argv, "--mount");
  assert.ok(mounts.includes("type=bind,source=/tmp,target=/tmp,readonly"));
  assert.ok(
    mounts.includes("type=bind,source=/tmp/odek-1000/host-x/tmp,target=/tmp/odek-1000/host-x/tmp"),
  );
  assert.ok(
    mounts.includes("type=bind,source=/srv/ws/.git/config,target=/srv/ws/.git/config,readonly"),
  );
  assert.ok(values(argv, "--tmpfs").includes("/tmp/odek-1000:rw,size=1m,mode=0700"));
  const inner = Object.fromEntries(values(argv, "-e").map((e) => e.split(/=(.*)/s).slice(0, 2)));
  assert.equal(inner.TMPDIR, "/tmp/odek-1000/host-x/tmp");
});
