/**
 * The check every bwrap sandbox runs first (`_sandbox_check.ts`), against real mounts: a mount
 * that is not the pinned object, a source or a destination swapped for a link, a mount whose
 * kernel path is not the validated source, and the inherited descriptors it closes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pinKey, pinPath } from "../../src/_util/pin_path.ts";
import { renderSandbox, type SandboxContext } from "../../src/broker/render_sandbox.ts";
import {
  SANDBOX_CHECK_EXIT,
  SANDBOX_CHECK_MARKER,
  SANDBOX_CHECK_PASSED,
  sandboxCheckArgv,
} from "../../src/broker/_sandbox_check.ts";
import { bwrap, makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const decoder = new TextDecoder();

async function run(argv: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function program(set: { readPaths: string[]; writePaths: string[] }, context: SandboxContext) {
  return renderSandbox(
    { ...set, network: { type: "none" }, runBinaries: [], envNames: [] },
    context,
    { kind: "program", argv: ["bash", "-c", "echo ran"] },
  );
}

sandboxTest("the sandbox check lets a sandbox whose mounts are what was pinned run", async () => {
  await using f = await makeSandboxFixture();
  const { argv, env } = program({ readPaths: [f.workspace], writePaths: [f.workspace] }, f.context);
  const result = await run(argv, env);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "ran\n");
  // Its word comes first on stderr, before anything of the program: the program's stderr follows.
  assert.equal(result.stderr, SANDBOX_CHECK_PASSED);
  const loud = renderSandbox(
    {
      readPaths: [f.workspace],
      writePaths: [],
      network: { type: "none" },
      runBinaries: [],
      envNames: [],
    },
    f.context,
    { kind: "program", argv: ["bash", "-c", `echo '${SANDBOX_CHECK_MARKER} x' >&2`] },
  );
  const spoken = await run(loud.argv, loud.env);
  assert.equal(spoken.stderr, `${SANDBOX_CHECK_PASSED}${SANDBOX_CHECK_MARKER} x\n`);
});

sandboxTest("the sandbox check refuses a workspace replaced after it was pinned", async () => {
  await using f = await makeSandboxFixture();
  const { argv, env } = program({ readPaths: [f.workspace], writePaths: [f.workspace] }, f.context);
  // After the pin, another directory takes the workspace's name: bwrap mounts that one.
  await Deno.rename(f.workspace, `${f.workspace}.old`);
  await Deno.mkdir(f.workspace);
  const result = await run(argv, env);
  assert.equal(result.code, SANDBOX_CHECK_EXIT);
  assert.ok(result.stderr.startsWith(SANDBOX_CHECK_MARKER), result.stderr);
  assert.match(result.stderr, /not the object odek pinned/);
  assert.equal(result.stdout, "", "nothing of the call ran");
});

sandboxTest(
  "the sandbox check refuses a workspace swapped for a symlink after the pin",
  async () => {
    await using f = await makeSandboxFixture();
    const { argv, env } = program(
      { readPaths: [f.workspace], writePaths: [f.workspace] },
      f.context,
    );
    // A relative link to a directory beside it (relative, so it resolves inside bwrap's new root).
    await Deno.mkdir(`${f.workspace}.other`);
    await Deno.rename(f.workspace, `${f.workspace}.old`);
    await Deno.symlink("workspace.other", f.workspace);
    const result = await run(argv, env);
    assert.equal(result.code, SANDBOX_CHECK_EXIT, result.stderr);
    assert.ok(result.stderr.startsWith(SANDBOX_CHECK_MARKER), result.stderr);
    assert.equal(result.stdout, "");
  },
);

sandboxTest(
  "the sandbox check refuses a read-only mount that landed elsewhere (a swapped parent)",
  async () => {
    await using f = await makeSandboxFixture();
    // The workspace is writable; `a/b` inside it is read-only (a `:ro` added directory).
    const nested = join(f.workspace, "a", "b");
    await Deno.mkdir(nested, { recursive: true });
    await Deno.mkdir(join(f.workspace, "x", "b"), { recursive: true });
    const { argv, env } = program(
      { readPaths: [f.workspace, nested], writePaths: [f.workspace] },
      f.context,
    );
    // `a` becomes a link to `x`: bwrap's read-only mount of a/b lands on x/b instead.
    await Deno.rename(join(f.workspace, "a"), join(f.workspace, "a.old"));
    await Deno.symlink("x", join(f.workspace, "a"));
    const result = await run(argv, env);
    assert.equal(result.code, SANDBOX_CHECK_EXIT, result.stderr);
    assert.match(result.stderr, /is a symlink|nothing is mounted|not the object|shows/);
    assert.equal(result.stdout, "");
  },
);

sandboxTest(
  "the sandbox check compares the kernel's path of each mount with its source",
  async () => {
    if (bwrap === null) return;
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-check-" }));
    try {
      // Two names of one file (a hard link): same device and inode, different paths.
      const [one, two] = [join(dir, "one"), join(dir, "two")];
      await Deno.writeTextFile(one, "x");
      await Deno.link(one, two);
      const pin = pinKey(pinPath(one)!);
      const base = [bwrap, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"];
      const check = (source: string) =>
        run([
          ...base,
          "--tmpfs",
          "/tmp",
          "--ro-bind",
          two,
          "/tmp/mounted",
          "--",
          ...sandboxCheckArgv([{ dest: "/tmp/mounted", source, mode: "ro", pin }], {
            path: "",
            pin: "",
          }, ["echo", "ran"]),
        ]);
      const right = await check(two);
      assert.equal(right.code, 0, right.stderr);
      const wrong = await check(one);
      assert.equal(wrong.code, SANDBOX_CHECK_EXIT);
      assert.match(wrong.stderr, new RegExp(`shows ${two}, not ${one}`));
      const writable = await run([
        ...base,
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        two,
        "/tmp/mounted",
        "--",
        ...sandboxCheckArgv([{ dest: "/tmp/mounted", source: two, mode: "rw", pin }], {
          path: "",
          pin: "",
        }, ["echo", "ran"]),
      ]);
      assert.match(writable.stderr, /the mount at \/tmp\/mounted is not rw/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

sandboxTest(
  "the sandbox check refuses a program that is not in its session's network namespace",
  async () => {
    if (bwrap === null) return;
    const base = [bwrap, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"];
    // A fresh namespace of its own: whatever inode was expected, it is not this one.
    const wrong = await run([
      ...base,
      "--unshare-net",
      "--",
      ...sandboxCheckArgv([], { path: "", pin: "" }, ["echo", "ran"], { netns: "1" }),
    ]);
    assert.equal(wrong.code, SANDBOX_CHECK_EXIT, wrong.stderr);
    assert.match(wrong.stderr, /the network namespace is not the session's \(\d+, expected 1\)/);
    assert.equal(wrong.stdout, "");
    // Its own inode passes (read inside, then expected).
    const own = await run([
      ...base,
      "--",
      "/bin/bash",
      "-c",
      'exec {h}</proc/self/ns/net; sed -n "s/^ino:\\s*//p" /proc/self/fdinfo/$h',
    ]);
    const ino = own.stdout.trim();
    assert.match(ino, /^\d+$/, own.stderr);
    const right = await run([
      ...base,
      "--",
      ...sandboxCheckArgv([], { path: "", pin: "" }, ["echo", "ran"], { netns: ino }),
    ]);
    assert.equal(right.code, 0, right.stderr);
    assert.equal(right.stdout, "ran\n");
  },
);
