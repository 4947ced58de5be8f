import { join } from "node:path";
import assert from "node:assert/strict";
import { odekFixture } from "./_odek.ts";

function deadPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

Deno.test("odek run: a refused connection to the base URL fails fast with one line naming the URL, exit 1, the task printed back", async () => {
  await using fx = await odekFixture();
  const url = `http://127.0.0.1:${deadPort()}/v1`;
  const started = performance.now();
  const result = await fx.run(["run", "--base-url", url, "hello"]);
  const elapsed = performance.now() - started;
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.trim().split("\n");
  const error = lines.find((l) => l.includes(url));
  assert.ok(error, result.stderr);
  assert.match(error, /^odek: Cannot reach the model at http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.ok(elapsed < 20_000, `took ${elapsed} ms`);
  // The model was never reached: no session is left to resume (issue 14, case 10), and the
  // task is given back.
  assert.ok(result.stderr.endsWith("odek: your task was:\n\nhello\n\n"), result.stderr);
  const list = await fx.run(["sessions", "list"]);
  assert.match(list.stdout, /No sessions yet/);
});

Deno.test("odek run: no API key with a non-loopback base URL fails before any request", async () => {
  await using fx = await odekFixture();
  const result = await fx.run(["run", "--base-url", "https://api.example.com/v1", "hello"]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^odek: No API key for https:\/\/api\.example\.com\/v1: set ODEK_API_KEY, OPENAI_API_KEY \(the first one set is used\)/,
  );
  const list = await fx.run(["sessions", "list"]);
  assert.match(list.stdout, /No sessions yet/);
});

Deno.test("odek run: the API key never reaches the transcript, the session file or stderr", async () => {
  await using fx = await odekFixture();
  const key = "sk-test-0123456789abcdefghijklmnop";
  const url = `http://127.0.0.1:${deadPort()}/v1`;
  const result = await fx.run(["run", "--base-url", url, `my key is ${key}`], {
    env: { ODEK_API_KEY: key },
  });
  assert.equal(result.code, 1);
  assert.doesNotMatch(result.stderr, new RegExp(key));
  for await (const entry of Deno.readDir(`${fx.odekHome}/sessions`)) {
    const text = await Deno.readTextFile(`${fx.odekHome}/sessions/${entry.name}`);
    assert.doesNotMatch(text, new RegExp(key), entry.name);
  }
});

Deno.test("odek run: no API key says when secrets.env was ignored, and why", async () => {
  await using fx = await odekFixture();
  const file = join(fx.env.ODEK_HOME, "secrets.env");
  await Deno.mkdir(fx.env.ODEK_HOME, { recursive: true });
  await Deno.writeTextFile(file, "ODEK_API_KEY=sk-not-used-here\n", { mode: 0o644 });
  await Deno.chmod(file, 0o644);
  const result = await fx.run(["run", "--base-url", "https://api.example.com/v1", "hello"]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /No API key for .*Your secrets\.env was not read: .*mode 644.*chmod 600/s,
  );
});
