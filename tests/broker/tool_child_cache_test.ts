import assert from "node:assert/strict";
import { join } from "node:path";
import { renderSandbox } from "../../src/broker/render_sandbox.ts";
import {
  CACHE_FILES,
  SANDBOX_DENO_DIR,
  toolChildDenoDir,
} from "../../src/broker/tool_child_deno_dir.ts";
import { makeSandboxFixture, REPO_TOOLS_DIR, sandboxTest } from "../_helpers/sandbox.ts";

const SET = {
  readPaths: [] as string[],
  writePaths: [] as string[],
  network: { type: "none" as const },
  runBinaries: [] as string[],
  envNames: [] as string[],
};

/** Run a tool child's sandbox with `program` in place of deno; its stdout and exit code. */
async function runInChildSandbox(
  context: Parameters<typeof renderSandbox>[1],
  entry: string,
  program: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { argv, env } = renderSandbox(SET, context, { kind: "tool_child", entry });
  const deno = argv.lastIndexOf(context.denoPath);
  assert.equal(argv[deno + 1], "run", "deno is the sandbox's program");
  const full = [...argv.slice(0, deno), ...program];
  const out = await new Deno.Command(full[0], {
    args: full.slice(1),
    cwd: context.workspace,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

sandboxTest(
  "a sandboxed catalogue child finds its cache's SQLite files copied into its /tmp by bwrap",
  async () => {
    await using fx = await makeSandboxFixture();
    const tools = join(fx.workspace, "..", "tools");
    await Deno.mkdir(tools);
    const entry = join(tools, "files.ts");
    await Deno.writeTextFile(entry, "");
    const cache = toolChildDenoDir(tools, entry);
    await Deno.mkdir(join(cache, "gen"), { recursive: true });
    // Two of the three databases (random bytes); the third is missing, as in a fresh cache.
    const present = CACHE_FILES.slice(0, 2);
    for (const name of present) {
      await Deno.writeFile(join(cache, name), crypto.getRandomValues(new Uint8Array(40_000)));
    }
    const context = { ...fx.context, toolsDir: tools };
    const listing = await runInChildSandbox(context, entry, [
      "/bin/sh",
      "-c",
      // The copies equal their sources, the missing one is an empty file, gen/ is the cache's,
      // and none of the descriptors the launcher opened reached the program.
      `for f in "$@"; do cmp -s "${SANDBOX_DENO_DIR}/$f" "${cache}/$f" || exit 3; done
[ -f "${SANDBOX_DENO_DIR}/${CACHE_FILES[2]}" ] && [ ! -s "${SANDBOX_DENO_DIR}/${
        CACHE_FILES[2]
      }" ] || exit 4
[ "$(readlink "${SANDBOX_DENO_DIR}/gen")" = "${cache}/gen" ] || exit 5
ls /proc/self/fd`,
      "odek-test",
      ...present,
    ]);
    assert.equal(listing.code, 0, listing.stderr);
    // 0, 1, 2, and the descriptor ls reads /proc/self/fd with.
    assert.deepEqual(listing.stdout.trim().split("\n").map(Number).filter((fd) => fd > 3), []);
  },
);

sandboxTest(
  "the file child's cache after setup holds exactly the SQLite files the sandbox copies",
  async () => {
    const cache = toolChildDenoDir(REPO_TOOLS_DIR, join(REPO_TOOLS_DIR, "files.ts"));
    let names: string[];
    try {
      names = (await Array.fromAsync(Deno.readDir(cache))).map((e) => e.name);
    } catch {
      console.error(`skipping: ${cache} is missing (run deno task setup)`);
      return;
    }
    // A Deno upgrade that renames a database would otherwise leave the sandboxed child cold.
    const databases = names.filter((name) => /_v\d+$/.test(name)).sort();
    assert.deepEqual(databases, [...CACHE_FILES].sort());
  },
);
