/**
 * The README demo: replays the committed cassette `demo/fix_the_bug.cassette.json` (a hand-scripted
 * model, in the exact chat-completions streaming format) against a fresh temporary workspace and
 * `ODEK_HOME`. The tools really run — in their sandboxes — so the output shown is real.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const workspace = await Deno.makeTempDir({ prefix: "odek-demo-workspace-" });
const odekHome = await Deno.makeTempDir({ prefix: "odek-demo-home-" });
const task =
  "Write stats.js: a Node.js program that prints the mean and median of [3, 1, 4, 1, 5, 9, 2, 6]. Run it, check the numbers are right, fix any bug, run it again, and summarise.";

console.error(`odek demo: workspace ${workspace}\nodek demo: ODEK_HOME ${odekHome}\n`);
const env: Record<string, string> = { ...Deno.env.toObject(), ODEK_HOME: odekHome };
delete env.ODEK_API_KEY;
delete env.OPENAI_API_KEY;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    "--allow-run",
    join(root, "main.ts"),
    "run",
    "--replay",
    join(root, "demo", "fix_the_bug.cassette.json"),
    "--workspace",
    workspace,
    "--model",
    "demo-model",
    task,
  ],
  env,
  clearEnv: true,
  stdin: "null",
}).spawn();
const status = await child.status;
console.error(
  `\nodek demo: the files are in ${workspace}\nodek demo: read the whole transcript with: ODEK_HOME=${odekHome} npx -y deno@2.9.6 task odek sessions show`,
);
Deno.exit(status.code);
