import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { ODEK_FLAGS, odekFixture, ROOT } from "./_odek.ts";

Deno.test("odek --version names odek's version, the pinned deno and the children's deno", async () => {
  await using fx = await odekFixture();
  const result = await fx.run(["--version"]);
  assert.equal(result.code, 0);
  assert.match(
    result.stdout,
    /^odek \d+\.\d+\.\d+ \(deno 2\.9\.6, pinned 2\.9\.6; tool children run with \/\S+ \(self\)\)\n$/,
  );
});

Deno.test("--help works on every command and usage errors exit 2", async (t) => {
  await using fx = await odekFixture();
  for (
    const args of [["--help"], ["run", "--help"], ["continue", "--help"], ["sessions", "--help"]]
  ) {
    await t.step(args.join(" "), async () => {
      const result = await fx.run(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Usage:|odek run/);
    });
  }
  for (
    const [args, message] of [
      [["frobnicate"], /Unknown command "frobnicate"/],
      [["run", "--no-such-flag", "x"], /Unknown flag --no-such-flag\. Run "odek run --help"/],
      [["run", "--max-iterations", "many", "x"], /--max-iterations takes a whole number/],
      [["run"], /No task given/],
      [["sessions", "explode"], /Unknown sessions action "explode"/],
    ] as const
  ) {
    await t.step(args.join(" "), async () => {
      const result = await fx.run([...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    });
  }
});

Deno.test("odek run reads the task from piped stdin and from -, and --json prints odek.event/v1 lines", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "piped ok" }, { text: "dash ok" }],
  });
  const piped = await fx.run(["run", "--base-url", server.url, "--json"], {
    stdin: "task from a pipe\n",
  });
  assert.equal(piped.code, 0, piped.stderr);
  const events = piped.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.ok(events.every((e) => e.schema === "odek.event/v1" && /^[0-9a-f]{32}$/.test(e.run_id)));
  assert.equal(events[0].type, "run_started");
  assert.equal(events.at(-1).type, "run_completed");
  assert.equal(
    events.filter((e) => e.type === "text_delta").map((e) => e.data.text).join(""),
    "piped ok",
  );
  const userOf = (i: number) =>
    server.requests[i].body.messages.find((m: { role: string }) => m.role === "user").content;
  assert.equal(userOf(0), "task from a pipe");
  const dash = await fx.run(["run", "--base-url", server.url, "-"], { stdin: "task from dash" });
  assert.equal(dash.code, 0, dash.stderr);
  assert.equal(userOf(1), "task from dash");
  assert.match(dash.stdout, /^dash ok\n$/);
  assert.ok(!dash.stderr.includes("\u001b["), "no colour when stderr is not a terminal");
});

Deno.test("odek run stops at --max-iterations with exit code 4 and continue resumes", async () => {
  await using fx = await odekFixture();
  const glob = { name: "glob", arguments: { pattern: "*" } };
  await using server = await startFakeOpenAIServer({
    turns: [
      { toolCalls: [{ id: "g1", ...glob }] },
      { toolCalls: [{ id: "g2", ...glob }] },
      { text: "Globbed twice, not finished." }, // the partial summary
      { text: "finished" },
    ],
  });
  const first = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--session",
    "budget",
    "--max-iterations",
    "2",
    "loop",
  ]);
  assert.equal(first.code, 4, first.stderr);
  assert.match(
    first.stderr,
    /Stopped after 2 model turns \(--max-iterations 2\)[\s\S]*odek continue budget/,
  );
  assert.match(first.stdout, /partial summary\]\nGlobbed twice, not finished\./);
  const second = await fx.run(["continue", "budget", "--base-url", server.url]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /finished/);
  const done = await fx.run(["continue", "budget", "--base-url", server.url]);
  assert.equal(done.code, 2, done.stderr);
  assert.match(done.stderr, /nothing left to do/);
});

Deno.test({
  name:
    "deno task compile builds a binary that answers --version (needs DENORT_BIN: deno compile downloads denort)",
  ignore: !Deno.env.get("DENORT_BIN"),
  async fn() {
    const out = join(await Deno.makeTempDir(), "odek");
    try {
      const build = await new Deno.Command(Deno.execPath(), {
        args: [
          "compile",
          ...ODEK_FLAGS.slice(1),
          "--include",
          "tools/",
          "--output",
          out,
          "main.ts",
        ],
        cwd: ROOT,
        stderr: "piped",
      }).output();
      assert.ok(build.success, new TextDecoder().decode(build.stderr));
      const version = await new Deno.Command(out, {
        args: ["--version"],
        env: { ODEK_DENO: Deno.execPath() },
      }).output();
      assert.match(
        new TextDecoder().decode(version.stdout),
        /^odek \d+\.\d+\.\d+ .*tool children run with .* \(ODEK_DENO\)/,
      );
    } finally {
      await Deno.remove(join(out, ".."), { recursive: true });
    }
  },
});
if (!Deno.env.get("DENORT_BIN")) {
  console.error(
    "skipping the compile test: DENORT_BIN is not set (deno compile downloads denort, which needs network; set DENORT_BIN to a denort 2.9.6 binary)",
  );
}

Deno.test("odek run refuses bad paths and names before it starts, with the fix in the message", async (t) => {
  await using fx = await odekFixture();
  const url = "http://127.0.0.1:9/v1";
  const comma = join(fx.home, "..", "a,b");
  await Deno.mkdir(comma);
  const cases: [string, string[], Record<string, string>, number, RegExp][] = [
    ["empty session name", ["run", "--session", "", "x"], {}, 2, /--session needs a name/],
    [
      "record into a missing folder",
      ["run", "--base-url", url, "--record", "/nonexistent-dir/c.json", "x"],
      {},
      2,
      /Cannot record to \/nonexistent-dir\/c\.json: the folder \/nonexistent-dir does not exist/,
    ],
    [
      "workspace with a comma",
      ["run", "--base-url", url, "--workspace", comma, "x"],
      {},
      1,
      /its path holds a comma or a control character/,
    ],
    [
      "HOME is /",
      ["run", "--base-url", url, "x"],
      { HOME: "/" },
      1,
      /HOME is "\/", which is the root directory/,
    ],
  ];
  for (const [name, args, env, code, message] of cases) {
    await t.step(name, async () => {
      const result = await fx.run(args, { env });
      assert.equal(result.code, code, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /^\s+at /m, "no stack trace");
    });
  }
  const list = await fx.run(["sessions", "list"]);
  assert.match(list.stdout, /No sessions yet/, "nothing was created");
});
