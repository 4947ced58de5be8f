/**
 * `odek undo` for real: a scripted model's contained `rm -rf` (a shell call in odek's bwrap
 * sandbox, aimed at files of this test's scratch workspace) is undone byte for byte, a
 * `.gitignore`d `node_modules` is left alone and reported, a file the operator changed after the
 * checkpoint is listed and kept unless they agree, and the next request leaves the undone turn out.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture } from "./_odek.ts";

/** Every file under `dir` except `node_modules` and `.git`, as path → bytes. */
async function files(dir: string, prefix = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.name === "node_modules") continue;
    if (entry.isDirectory) {
      for (const [p, b] of await files(dir, path)) out.set(p, b);
    } else {
      const info = await Deno.lstat(join(dir, path));
      const bytes = await Deno.readFile(join(dir, path));
      out.set(path, `${(info.mode! & 0o777).toString(8)}:${Array.from(bytes).join(",")}`);
    }
  }
  return out;
}

sandboxTest(
  "odek undo after a contained rm -rf restores every file byte for byte, and the next request leaves the turn out",
  async () => {
    await using fx = await odekFixture();
    const ws = fx.workspace;
    await Deno.mkdir(join(ws, "src/lib"), { recursive: true });
    await Deno.mkdir(join(ws, "node_modules/left-pad"), { recursive: true });
    await Deno.mkdir(join(ws, "node_modules/right-pad"), { recursive: true });
    await Deno.writeTextFile(join(ws, ".gitignore"), "node_modules/\n");
    await Deno.writeTextFile(join(ws, "src/app.ts"), 'import { pad } from "./lib/util.ts";\n');
    await Deno.writeTextFile(join(ws, "src/lib/util.ts"), "export const pad = 1;\n");
    await Deno.writeFile(join(ws, "data.bin"), new Uint8Array([0, 255, 1, 254, 0, 10, 13]));
    await Deno.writeTextFile(join(ws, "run.sh"), "#!/bin/sh\necho run\n", { mode: 0o755 });
    await Deno.chmod(join(ws, "run.sh"), 0o755);
    await Deno.writeTextFile(join(ws, "README.md"), "# demo\n");
    await Deno.writeTextFile(join(ws, "node_modules/left-pad/index.js"), "module.exports = 1;\n");

    await using first = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [{
            id: "n1",
            name: "write_file",
            arguments: { path: "notes.txt", content: "first turn's notes\n" },
          }],
        },
        { text: "Noted." },
      ],
    });
    const one = await fx.run([
      "run",
      "--session",
      "undo-me",
      "--base-url",
      first.url,
      "write notes",
    ]);
    assert.equal(one.code, 0, one.stderr);
    const afterTurnOne = await files(ws);

    await using second = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [{
            id: "rm1",
            name: "shell",
            arguments: {
              command: "rm -rf src README.md data.bin notes.txt run.sh node_modules/left-pad",
            },
          }],
        },
        { text: "Cleaned up." },
      ],
    });
    const two = await fx.run([
      "continue",
      "undo-me",
      "clean everything up",
      "--base-url",
      second.url,
    ]);
    assert.equal(two.code, 0, two.stderr);
    assert.deepEqual([...(await files(ws)).keys()], [".gitignore"]);
    assert.match(two.stderr, /± 6 files changed \(.*\) · undo with: odek undo/);

    // The operator writes src/app.ts anew after the checkpoint.
    await Deno.mkdir(join(ws, "src"));
    await Deno.writeTextFile(join(ws, "src/app.ts"), "the operator's own rewrite\n");
    const refused = await fx.run(["undo"], { noTerminal: true });
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /src\/app\.ts/);
    assert.match(refused.stderr, /Nothing was restored.*--keep-changed.*--overwrite/s);
    assert.equal(await Deno.stat(join(ws, "src/lib/util.ts")).catch(() => null), null);

    const undone = await fx.run(["undo", "--keep-changed"], { noTerminal: true });
    assert.equal(undone.code, 0, undone.stderr);
    assert.match(undone.stderr, /undid turn 2 of session undo-me: "clean everything up"/);
    assert.match(undone.stderr, /kept as you changed them: src\/app\.ts/);
    assert.match(
      undone.stderr,
      /not restorable, left as they are \(\.gitignore'd.*\): node_modules \(changed\)/,
    );
    const restored = await files(ws);
    const expected = new Map(afterTurnOne);
    expected.set("src/app.ts", restored.get("src/app.ts")!);
    assert.deepEqual(restored, expected);
    assert.equal(await Deno.readTextFile(join(ws, "src/app.ts")), "the operator's own rewrite\n");
    // node_modules was left alone: not restored, not deleted.
    assert.equal(await Deno.stat(join(ws, "node_modules/left-pad")).catch(() => null), null);
    assert.ok((await Deno.stat(join(ws, "node_modules/right-pad"))).isDirectory);

    await using third = await startFakeOpenAIServer({ turns: [{ text: "Only the notes." }] });
    const three = await fx.run(["continue", "what is left?", "--base-url", third.url]);
    assert.equal(three.code, 0, three.stderr);
    const sent = JSON.stringify(third.requests[0].body.messages);
    assert.ok(
      sent.includes("write notes") && sent.includes("Noted.") && sent.includes("what is left?"),
    );
    assert.ok(!sent.includes("clean everything up") && !sent.includes("rm -rf"), sent);

    const show = await fx.run(["sessions", "show", "undo-me"]);
    assert.match(show.stdout, /── rewind \(.*\) ── back to before turn 2/);
    assert.match(show.stdout, /clean everything up/, "the journal keeps the undone turn");
  },
);

Deno.test("odek rewind lists the turns and goes back to any of them: files only, then conversation only", async () => {
  await using fx = await odekFixture();
  const ws = fx.workspace;
  const turn = (n: number) => ({
    toolCalls: [{
      id: `w${n}`,
      name: "write_file",
      arguments: { path: "a.txt", content: `${n}\n` },
    }],
  });
  await using server = await startFakeOpenAIServer({
    turns: [turn(1), { text: "one" }, turn(2), { text: "two" }, turn(3), { text: "three" }],
  });
  const url = ["--base-url", server.url];
  assert.equal((await fx.run(["run", "--session", "three", ...url, "turn one"])).code, 0);
  assert.equal((await fx.run(["continue", "three", "turn two", ...url])).code, 0);
  assert.equal((await fx.run(["continue", "three", "turn three", ...url])).code, 0);
  const list = await fx.run(["rewind"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /Turns of session three/);
  assert.match(list.stdout, /^ {4}1 {2}files: checkpoint [0-9a-f]{10}\s+turn one$/m);
  assert.match(list.stdout, /^ {4}3 {2}files: checkpoint [0-9a-f]{10}\s+turn three$/m);
  const files = await fx.run(["rewind", "--to", "2", "--files"]);
  assert.equal(files.code, 0, files.stderr);
  assert.match(files.stderr, /rewound to before turn 2 of session three: "turn two"/);
  assert.doesNotMatch(files.stderr, /conversation:/);
  assert.equal(await Deno.readTextFile(join(ws, "a.txt")), "1\n");
  const talk = await fx.run(["rewind", "three", "--to", "2", "--conversation", "--json"]);
  assert.equal(talk.code, 0, talk.stderr);
  const outcome = JSON.parse(talk.stdout);
  assert.equal(outcome.files, undefined);
  assert.deepEqual(outcome.conversation.kept > 0, true);
  assert.equal(await Deno.readTextFile(join(ws, "a.txt")), "1\n");
  const after = await fx.run(["rewind", "--json"]);
  assert.deepEqual(JSON.parse(after.stdout).turns.map((t: { text: string }) => t.text), [
    "turn one",
  ]);
  const usage = await fx.run(["rewind", "--to", "9"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /has turns 1 to 1, not 9/);
});
