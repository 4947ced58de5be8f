import assert from "node:assert/strict";
import { join } from "node:path";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { ROOT } from "./_odek.ts";

sandboxTest("the README demo replays its cassette and shows real tool output", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      join(ROOT, "scripts", "demo.ts"),
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  // The task shown is the task the cassette was recorded with, and the one the session holds.
  assert.match(stderr, /^odek demo: task: Write stats\.sh, a bash script/);
  // Real output of the sandboxed runs: the bug, then the fix.
  assert.match(
    stderr,
    /✓ shell bash stats\.sh 3 1 4 1 5 9 2 6 \(\d+ ms\)\n {2}│ exit code 0 · \d+ ms\n {2}│ stdout:\n {2}│ mean: 3\.875\n {2}│ median: 3\n/,
  );
  assert.match(stderr, /│ median: 3\.5\n {2}│ mean: 5\.000\n {2}│ median: 5\n/);
  // The fix itself is shown: the rewrite of stats.sh as a diff (it used to say only "Replaced").
  assert.match(
    stderr,
    /± stats\.sh \+1 -1\n(?: {2}│ .*\n)*? {2}│ -nums=\("\$@"\)\n {2}│ \+mapfile -t nums/,
  );
  assert.match(stderr, /odek: done · 6 steps · 6 tool calls/);
  assert.match(stdout, /Fix: the numbers are sorted numerically/);
  const workspace = stderr.match(/odek demo: the files are in (\S+)/)![1];
  const home = stderr.match(/ODEK_HOME=(\S+)/)![1];
  try {
    assert.match(await Deno.readTextFile(join(workspace, "stats.sh")), /sort -n/);
    const cassette = JSON.parse(
      await Deno.readTextFile(join(ROOT, "demo", "fix_the_bug.cassette.json")),
    );
    const recordedTask = cassette.turns[0].request.messages.find((m: { role: string }) =>
      m.role === "user"
    ).content;
    const journal = await Deno.readTextFile(
      join(
        home,
        "sessions",
        (await Array.fromAsync(Deno.readDir(join(home, "sessions")))).find((e) =>
          e.name.endsWith(".jsonl")
        )!.name,
      ),
    );
    assert.ok(
      journal.includes(JSON.stringify(recordedTask)),
      "the demo's task differs from the recorded one",
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
