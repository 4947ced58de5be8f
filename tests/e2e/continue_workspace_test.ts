/**
 * `odek continue` knows which project it is in: without an id it resumes the newest session of
 * the current workspace (the failing input: it resumed project B's newest session from project A
 * and edited B), says so when there is none, and says first when a session works elsewhere. The
 * start banner names the model, host, workspace, trust, session and the AGENTS.md files loaded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";

Deno.test("odek continue resumes the current workspace's newest session, never another project's", async () => {
  await using fx = await odekFixture();
  const projectA = fx.workspace;
  const projectB = join(fx.workspace, "..", "project-b");
  const empty = join(fx.workspace, "..", "project-c");
  await Deno.mkdir(projectB);
  await Deno.mkdir(empty);
  await Deno.writeTextFile(join(projectA, "AGENTS.md"), "Use tabs.\nRun the tests.\nBe brief.\n");
  await Deno.writeTextFile(
    join(fx.odekHome, "AGENTS.md"),
    "I prefer British spelling.\nNo emoji.\n",
  );
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "A done." }, { text: "B done." }, { text: "A again." }, { text: "B again." }],
  });
  const url = ["--base-url", server.url];
  const a = await fx.run(["run", "--session", "in-a", ...url, "task for A"], { cwd: projectA });
  assert.equal(a.code, 0, a.stderr);
  const [first, second] = a.stderr.split("\n");
  assert.match(
    first,
    /^odek \S+ · gpt-4\.1-mini @ 127\.0\.0\.1:\d+ · trust standard · sandbox \w+$/,
  );
  assert.equal(
    second,
    `workspace ${projectA} · session in-a · ODEK_HOME/AGENTS.md (2 lines) · AGENTS.md (3 lines)`,
  );
  const b = await fx.run(["run", "--session", "in-b", ...url, "task for B"], { cwd: projectB });
  assert.equal(b.code, 0, b.stderr);

  // From A, the newest session overall is B's: continue must still pick A's.
  const again = await fx.run(["continue", "more for A", ...url], { cwd: projectA });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /session in-a \(resumed\)/);
  assert.doesNotMatch(again.stderr, /works in/);
  const sent = JSON.stringify(server.requests[2].body.messages);
  assert.ok(sent.includes("task for A") && !sent.includes("task for B"), sent);

  // Nowhere to resume: said, with the sessions elsewhere.
  const none = await fx.run(["continue", "hello there", ...url], { cwd: empty });
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    new RegExp(
      `No session works in ${
        empty.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      }.*newest elsewhere: in-a in .*; in-b in .*odek continue <session>`,
    ),
  );

  // A session named from another directory: the first line says where it works.
  const named = await fx.run(["continue", "in-b", "and more", ...url], { cwd: projectA });
  assert.equal(named.code, 0, named.stderr);
  assert.equal(
    named.stderr.split("\n")[0],
    `odek: session in-b works in ${projectB}, not in the current directory ${projectA}`,
  );
});
