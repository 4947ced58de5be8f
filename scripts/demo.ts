/**
 * The README demo: replays the committed cassette `demo/fix_the_bug.cassette.json` (a hand-scripted
 * model, in the exact chat-completions streaming format) against a fresh temporary workspace and
 * `ODEK_HOME`. The tools really run — in their sandboxes — so the output shown is real.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_TASK } from "./record_demo_cassette.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const workspace = await Deno.makeTempDir({ prefix: "odek-demo-workspace-" });
const odekHome = await Deno.makeTempDir({ prefix: "odek-demo-home-" });
console.error(
  `odek demo: task: ${DEMO_TASK}\nodek demo: workspace ${workspace}\nodek demo: ODEK_HOME ${odekHome}\n`,
);
const env: Record<string, string> = { ...Deno.env.toObject(), ODEK_HOME: odekHome };
delete env.ODEK_API_KEY;
delete env.OPENAI_API_KEY;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "--quiet",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    "--allow-run",
    "--allow-sys=uid,gid,networkInterfaces",
    join(root, "main.ts"),
    "run",
    "--replay",
    join(root, "demo", "fix_the_bug.cassette.json"),
    "--workspace",
    workspace,
    "--model",
    "demo-model",
    DEMO_TASK,
  ],
  env,
  clearEnv: true,
  stdin: "null",
}).spawn();
const status = await child.status;
console.error(
  `\nodek demo: the files are in ${workspace}\nodek demo: read the whole transcript with: ODEK_HOME=${odekHome} npx -y deno@2.9.6 task odek sessions show\nodek demo: both directories stay for you to inspect; delete them when done: rm -r ${workspace} ${odekHome}`,
);
Deno.exit(status.code);
