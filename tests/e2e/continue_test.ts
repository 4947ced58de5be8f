import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { odekFixture, ROOT } from "./_odek.ts";

Deno.test("odek continue that cannot start writes nothing to the session", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: [{ text: "first answer" }] });
  const first = await fx.run(["run", "--session", "keep", "--base-url", server.url, "start"]);
  assert.equal(first.code, 0, first.stderr);
  const journal = join(fx.odekHome, "sessions", "keep.jsonl");
  const before = await Deno.readFile(journal);
  // No API key for a non-loopback base URL: refused before anything is written.
  const failed = await fx.run([
    "continue",
    "keep",
    "more please",
    "--base-url",
    "https://api.example.com/v1",
  ]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /No API key for https:\/\/api\.example\.com\/v1/);
  assert.deepEqual(await Deno.readFile(journal), before, "the journal changed");
  // A workspace that is gone: refused before anything is written, too.
  const gone = await fx.run([
    "continue",
    "keep",
    "more please",
    "--base-url",
    server.url,
    "--workspace",
    join(fx.home, "nope"),
  ]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /Cannot use workspace/);
  assert.deepEqual(await Deno.readFile(journal), before, "the journal changed");
});

// The failing input: without bwrap, `odek run` warned that the shell tool is disabled and
// `odek continue` said nothing.
Deno.test("odek run and odek continue both warn that the shell tool is disabled when bwrap is missing", async () => {
  await using fx = await odekFixture();
  const empty = join(fx.home, "empty-path"); // a PATH with no bwrap on it
  await Deno.mkdir(empty);
  const env = { PATH: empty, ODEK_SANDBOX: "bwrap" };
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "first answer" }, { text: "second answer" }],
  });
  const warning = /odek: warning: bwrap is not installed, so the shell tool is disabled/;
  const first = await fx.run(["run", "--session", "nobwrap", "--base-url", server.url, "start"], {
    env,
  });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, warning);
  const next = await fx.run(["continue", "nobwrap", "more", "--base-url", server.url], { env });
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, warning);
});

Deno.test("odek continue with one word that names no session refuses instead of sending it as a message", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: [{ text: "hi" }] });
  assert.equal(
    (await fx.run(["run", "--session", "real", "--base-url", server.url, "start"])).code,
    0,
  );
  const typo = await fx.run(["continue", "rael", "--base-url", server.url]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /No session named "rael": see odek sessions list/);
  assert.equal(server.requests.length, 1, "nothing was sent");
});

Deno.test("a session answered from a cassette continues only with --replay or --base-url", async () => {
  await using fx = await odekFixture();
  const cassette = join(ROOT, "demo", "fix_the_bug.cassette.json");
  await Deno.writeTextFile(join(fx.workspace, "stats.sh"), "");
  const replayed = await fx.run([
    "run",
    "--session",
    "replayed",
    "--replay",
    cassette,
    "--max-iterations",
    "1",
    "go",
  ]);
  assert.equal(replayed.code, 4, replayed.stderr);
  const show = await fx.run(["sessions", "show", "replayed"]);
  assert.match(
    show.stdout,
    new RegExp(`replay:${cassette.replaceAll("/", "\\/").replaceAll(".", "\\.")}`),
  );
  const plain = await fx.run(["continue", "replayed"]);
  assert.equal(plain.code, 2);
  assert.match(
    plain.stderr,
    /was answered from the cassette .*fix_the_bug\.cassette\.json: continue it with --replay <cassette> or --base-url <url>/,
  );
});
