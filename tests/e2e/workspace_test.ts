import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

function shell(id: string, command: string) {
  return { toolCalls: [{ id, name: "shell", arguments: { command } }] };
}

sandboxTest(
  "odek run --dedicated-workspace provisions <ODEK_HOME>-workspace (0700), runs there with PWD and OLDPWD set, and keeps files between runs",
  async () => {
    await using fx = await odekFixture();
    const dedicated = `${fx.odekHome}-workspace`;
    await using server = await startFakeOpenAIServer({
      turns: [
        shell("s1", 'echo kept > rel.txt; pwd; echo "$PWD|$OLDPWD"; cd - >/dev/null; pwd'),
        { text: "first done" },
        shell("s2", "cat rel.txt"),
        { text: "second done" },
      ],
    });
    const first = await fx.run(["run", "--base-url", server.url, "--dedicated-workspace", "one"]);
    assert.equal(first.code, 0, first.stderr);
    const info = await Deno.stat(dedicated);
    assert.ok(info.isDirectory);
    assert.equal(info.mode! & 0o777, 0o700);
    const out = toolMessages(server.requests[1].body)[0].content;
    assert.ok(out.includes(`${dedicated}\n${dedicated}|${dedicated}\n${dedicated}\n`), out);
    assert.equal(await Deno.readTextFile(join(dedicated, "rel.txt")), "kept\n");
    assert.deepEqual(await Array.fromAsync(Deno.readDir(fx.workspace)), [], "wrote in the cwd");

    // Config instead of the flag; the file written by the first run is still there.
    await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), '{ "dedicatedWorkspace": true }');
    const second = await fx.run(["run", "--base-url", server.url, "two"]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(toolMessages(server.requests[3].body)[0].content, /stdout:\nkept\n/);
  },
);

sandboxTest(
  "odek run --dedicated-workspace refuses a workspace that is not private, with the fix, before any model request",
  async () => {
    await using fx = await odekFixture();
    const dedicated = `${fx.odekHome}-workspace`;
    await Deno.mkdir(dedicated);
    await Deno.chmod(dedicated, 0o755);
    await using server = await startFakeOpenAIServer({ turns: [{ text: "never" }] });
    const result = await fx.run(["run", "--base-url", server.url, "--dedicated-workspace", "x"]);
    assert.notEqual(result.code, 0);
    assert.ok(result.stderr.includes(`Run: chmod 700 ${dedicated}.`), result.stderr);
    assert.equal(server.requests.length, 0);
  },
);

sandboxTest(
  "the dedicated workspace is validated again before every spawn: made world-writable mid-run, the next call is refused",
  async () => {
    await using fx = await odekFixture();
    const dedicated = `${fx.odekHome}-workspace`;
    await using server = await startFakeOpenAIServer({
      turns: [shell("s1", "chmod 777 ."), shell("s2", "echo after"), { text: "done" }],
    });
    const result = await fx.run(["run", "--base-url", server.url, "--dedicated-workspace", "x"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await Deno.stat(dedicated)).mode! & 0o777, 0o777);
    const second = toolMessages(server.requests[2].body)[1].content;
    assert.match(second, /not run: Cannot use the dedicated workspace .*mode is 0777/);
    assert.ok(second.includes(`chmod 700 ${dedicated}`), second);
    assert.ok(!second.includes("after"), second);
  },
);

sandboxTest(
  "odek run --add-dir grants a writable and a read-only directory at their real paths, and tells the model",
  async () => {
    await using fx = await odekFixture();
    const root = dirname(fx.workspace);
    await Deno.mkdir(join(root, "cache"));
    await Deno.mkdir(join(root, "ref"));
    await Deno.writeTextFile(join(root, "ref", "doc.txt"), "reference\n");
    await using server = await startFakeOpenAIServer({
      turns: [
        shell("s1", `cat ${root}/ref/doc.txt > ${root}/cache/copy.txt`),
        // Hidden from the classifier (unknown, approved by --yes=unknown: read scope only).
        shell("s2", `sh -c 'echo bad > "$0"; echo rc=$?' ${root}/ref/doc.txt`),
        { text: "done" },
      ],
    });
    const result = await fx.run([
      "run",
      "--base-url",
      server.url,
      "--add-dir",
      "../cache",
      "--add-dir",
      `${root}/ref:ro`,
      "--yes=unknown",
      "copy it",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await Deno.readTextFile(join(root, "cache", "copy.txt")), "reference\n");
    assert.equal(await Deno.readTextFile(join(root, "ref", "doc.txt")), "reference\n");
    assert.match(
      toolMessages(server.requests[2].body)[1].content,
      /rc=[12]\n[\s\S]*Read-only file system/,
    );
    const system = server.requests[0].body.messages[0].content as string;
    assert.ok(
      system.includes(
        `Added directories (absolute paths reach them): ${root}/cache, ${root}/ref (read-only)`,
      ),
      system,
    );
  },
);

Deno.test("odek run --add-dir refuses a directory inside ODEK_HOME before any model request", async () => {
  await using fx = await odekFixture();
  await Deno.mkdir(join(fx.odekHome, "inner"));
  await using server = await startFakeOpenAIServer({ turns: [{ text: "never" }] });
  const result = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--add-dir",
    join(fx.odekHome, "inner"),
    "x",
  ]);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /Cannot use added directory .*inside odek's protected directory/);
  assert.equal(server.requests.length, 0);
});

sandboxTest(
  "odek continue validates a session that ran in the dedicated workspace as the dedicated one",
  async () => {
    await using fx = await odekFixture();
    const dedicated = `${fx.odekHome}-workspace`;
    await using server = await startFakeOpenAIServer({
      turns: [{ text: "first" }, shell("s1", "pwd"), { text: "second" }],
    });
    const first = await fx.run([
      "run",
      "--base-url",
      server.url,
      "--dedicated-workspace",
      "--session",
      "job",
      "one",
    ]);
    assert.equal(first.code, 0, first.stderr);
    await Deno.chmod(dedicated, 0o755);
    const refused = await fx.run(["continue", "job", "again", "--base-url", server.url]);
    assert.notEqual(refused.code, 0);
    assert.ok(refused.stderr.includes(`Run: chmod 700 ${dedicated}.`), refused.stderr);
    await Deno.chmod(dedicated, 0o700);
    const resumed = await fx.run(["continue", "job", "again", "--base-url", server.url]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(toolMessages(server.requests[2].body)[0].content, new RegExp(`${dedicated}\\n`));
  },
);
