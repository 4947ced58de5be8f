/**
 * The control of the checkpoint canary: real git, run in the planted repository, does run the
 * canary — so a checkpoint test that finds no marker shows odek ran none of it, not that the
 * canary was broken.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { plantCanaryRepository } from "./_canary_repo.ts";

const git = await new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);
if (!git) console.log("skipping the canary control: git is missing (apt-get install git)");

Deno.test({
  name: "control: git itself runs the planted filter driver (the canary is live)",
  ignore: !git,
  fn: async () => {
    const root = await Deno.makeTempDir({ prefix: "odek-canary-control-" });
    try {
      const workspace = join(root, "ws");
      const scratch = join(root, "scratch");
      await Deno.mkdir(workspace);
      await Deno.mkdir(scratch);
      const marker = await plantCanaryRepository(workspace, scratch);
      await Deno.writeTextFile(join(workspace, "src.txt"), "original\n");
      const out = await new Deno.Command("git", {
        args: ["add", "src.txt"],
        cwd: workspace,
        // git's own configuration only: no system or global file, like a user's plain `git add`.
        env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: root },
        stdout: "piped",
        stderr: "piped",
      }).output();
      // git starts the `process` filter (which fails its protocol: git then refuses the add).
      const marked = await Deno.readTextFile(marker).catch(() => "");
      assert.match(marked, /canary\.sh ran/, new TextDecoder().decode(out.stderr));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
