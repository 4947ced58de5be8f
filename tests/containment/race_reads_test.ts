/**
 * Issue 12's read races: a flipper exchanges a workspace file with a symlink — to a canary outside
 * the workspace, or to odek's own `tools/deno.json`, which the file children mount for
 * themselves — as fast as it can, while the reader under test reads it 2,000 times: the core's
 * `readAgentsMd` and approval preview, and `read_file` in a real file-tool child (bwrap). The
 * target of the link must never come back; the file itself must, often (else nothing raced).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Settings } from "../../src/runtime/compose.ts";
import { buildGate } from "../../src/runtime/build_gate.ts";
import { NonInteractiveApprover } from "../../src/approval/non_interactive_approver.ts";
import type { Classifier } from "../../src/danger/classifier.ts";
import { readAgentsMd } from "../../src/loop/initial_messages.ts";
import { ToolChildPool } from "../../src/broker/tool_child_pool.ts";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";
import { REPO_TOOLS_DIR, sandboxTest } from "../_helpers/sandbox.ts";
import { makeRaceScratch, startFlipper } from "./_race.ts";

const READS = 2000;
/** What the workspace file holds: it is fine to read. */
const OWN = "the workspace's own notes\n";
/** A line of odek's own `tools/deno.json` that no workspace file here contains. */
const TOOLS_CONFIG_LINE = '"imports"';

/** Run `read` `READS` times while `dir/a` and `dir/b` are exchanged as fast as possible. */
async function raceReads(
  dir: string,
  a: string,
  b: string,
  read: () => Promise<string | undefined>,
  forbidden: string[],
): Promise<{ own: number; flips: number }> {
  let own = 0;
  await using flipper = await startFlipper(dir, a, b, { periodMs: 0, deadlineMs: 120_000 });
  for (let i = 0; i < READS; i++) {
    const text = await read() ?? "";
    for (const secret of forbidden) {
      assert.ok(!text.includes(secret), `read ${i} returned what the link points to:\n${text}`);
    }
    if (text.includes(OWN.trim())) own++;
  }
  const flips = await flipper.stop();
  return { own, flips };
}

Deno.test("readAgentsMd() never reads what a swapped-in symlink points to (2,000 reads)", async () => {
  await using scratch = await makeRaceScratch();
  const ws = join(scratch.root, "ws");
  await Deno.mkdir(ws);
  await Deno.writeTextFile(join(ws, "AGENTS.md"), OWN);
  await Deno.symlink(join(scratch.home, ".ssh", "id_rsa"), join(ws, "alt"));
  const { own, flips } = await raceReads(
    ws,
    "AGENTS.md",
    "alt",
    () => readAgentsMd(ws),
    [scratch.canary],
  );
  console.error(`readAgentsMd race: ${READS} reads, ${flips} exchanges, ${own} read the file`);
  assert.ok(own > READS / 10, `only ${own} reads saw the file itself: nothing raced`);
  assert.ok(flips > 100, `the flipper made only ${flips} exchanges`);
  // Control: the check-then-open reader odek had before leaks under the same flipper.
  await using flipper = await startFlipper(ws, "AGENTS.md", "alt", { periodMs: 0 });
  let leaked = false;
  for (let i = 0; i < 50_000 && !leaked; i++) {
    leaked = (await checkThenOpen(join(ws, "AGENTS.md"))).includes(scratch.canary);
  }
  await flipper.stop();
  assert.ok(leaked, "the old check-then-open reader never leaked: the race was not live");
});

/** The reader `readAgentsMd` used before issue 12: `lstat`, then open by path (a control). */
async function checkThenOpen(path: string): Promise<string> {
  try {
    if (!(await Deno.lstat(path)).isFile) return "";
    return await Deno.readTextFile(path);
  } catch {
    return "";
  }
}

Deno.test("the approval preview never reads what a swapped-in symlink points to (2,000 reads)", async () => {
  await using scratch = await makeRaceScratch();
  const ws = join(scratch.root, "ws");
  await Deno.mkdir(ws);
  await Deno.writeTextFile(join(ws, "notes.txt"), OWN);
  await Deno.symlink(join(scratch.home, ".ssh", "id_rsa"), join(ws, "alt"));
  const settings = {
    paths: { home: scratch.home },
    config: { trustLevel: "standard", trustedClasses: [] },
  } as unknown as Settings;
  const gate = buildGate(
    settings,
    { workspace: ws, protectedRoots: [], dedicated: false },
    {
      classifier: {} as Classifier, // the preview never classifies
      approver: new NonInteractiveApprover({ yes: "all" }),
      trustLevel: "standard",
      addDirs: [],
    },
  );
  const call = { id: "c", name: "write_file", args: { path: "notes.txt", content: "new\n" } };
  const { own, flips } = await raceReads(
    ws,
    "notes.txt",
    "alt",
    async () => {
      const preview = await gate.preview!(call);
      return typeof preview === "object" ? preview.full : preview;
    },
    [scratch.canary],
  );
  console.error(`preview race: ${READS} previews, ${flips} exchanges, ${own} showed the file`);
  assert.ok(own > READS / 10, `only ${own} previews saw the file itself: nothing raced`);
});

for (const target of ["odek's own tools/deno.json", "a canary outside the workspace"]) {
  sandboxTest(
    `read_file in a file child never returns ${target} through a swapped link (2,000 reads)`,
    async () => {
      await using scratch = await makeRaceScratch();
      const base = await sandboxContextFromEnvironment({
        odekHome: join(scratch.root, "odek_home"),
        installDir: join(scratch.root, "install"),
        mode: "bwrap",
      });
      const canaryFile = join(scratch.home, ".canary");
      await Deno.writeTextFile(canaryFile, `${scratch.canary}\n`);
      const toolsConfig = join(REPO_TOOLS_DIR, "deno.json");
      assert.ok((await Deno.readTextFile(toolsConfig)).includes(TOOLS_CONFIG_LINE));
      const ws = join(scratch.root, "ws");
      await Deno.mkdir(ws);
      await Deno.writeTextFile(join(ws, "notes.txt"), OWN);
      const toTools = target.startsWith("odek");
      await Deno.symlink(toTools ? toolsConfig : canaryFile, join(ws, "alt"));
      // The canary is bound read-only into the child (as `~/.gitconfig` is), so the child's
      // namespace shows it: only the child's own check stands between a swapped link and it.
      const pool = new ToolChildPool({
        context: {
          ...base,
          toolsDir: REPO_TOOLS_DIR,
          home: scratch.home,
          readOnlyHomeFiles: [canaryFile],
        },
      });
      const set = {
        readPaths: [ws],
        writePaths: [],
        network: { type: "none" as const },
        runBinaries: [],
        envNames: [],
      };
      try {
        const control = await pool.call("read_file", { path: "notes.txt" }, { set, workspace: ws });
        assert.ok(control.ok && control.output.includes(OWN.trim()), JSON.stringify(control));
        const { own, flips } = await raceReads(ws, "notes.txt", "alt", async () => {
          const result = await pool.call("read_file", { path: "notes.txt" }, {
            set,
            workspace: ws,
          });
          return result.ok ? result.output : result.error.message;
        }, toTools ? [TOOLS_CONFIG_LINE, "nodeModulesDir"] : [scratch.canary]);
        console.error(
          `read_file race (${target}): ${READS} reads, ${flips} exchanges, ${own} read the file`,
        );
        assert.ok(own > READS / 10, `only ${own} reads saw the file itself: nothing raced`);
      } finally {
        await pool.close();
      }
    },
  );
}
