import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

const CALLS = [
  {
    id: "fetch",
    name: "shell",
    arguments: { command: "git clone https://example.invalid/repo.git" },
  },
  { id: "wipe", name: "shell", arguments: { command: "rm -rf ~/projects" } },
  { id: "look", name: "shell", arguments: { command: "git status --short || ls" } },
];

async function run(flags: string[], config?: string) {
  const fx = await odekFixture();
  if (config) await Deno.writeTextFile(`${fx.odekHome}/config.jsonc`, config);
  const server = await startFakeOpenAIServer({ turns: [{ toolCalls: CALLS }, { text: "done" }] });
  const result = await fx.run(["run", "--base-url", server.url, ...flags, "do three things"], {
    noTerminal: true,
  });
  const results = Object.fromEntries(
    toolMessages(server.requests[1].body).map((m) => [m.tool_call_id, m.content]),
  );
  await server.close();
  await fx[Symbol.asyncDispose]();
  return { result, results };
}

sandboxTest(
  "without a terminal, calls that ask are denied with how to allow them; everyday work runs",
  async () => {
    const { result, results } = await run([]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      results.fetch,
      /^error \(denied\): .*--yes.*\. It asked because git clone/,
    );
    assert.match(results.wipe, /^error \(denied\): .*It asked because rm -rf ~\/projects/);
    assert.doesNotMatch(
      results.look,
      /^error \(denied\)/,
      "git status / ls must not ask at standard",
    );
    assert.match(result.stderr, /✗ shell git clone \S+ denied/);
  },
);

sandboxTest(
  "--yes approves what asks except destructive; --yes=<class> approves exactly that class",
  async () => {
    const all = await run(["--yes"]);
    assert.equal(all.result.code, 0, all.result.stderr);
    // Approved, so it ran — and failed inside the sandbox, which has no network.
    assert.match(all.results.fetch, /^error \(failed\): exit code [1-9]/);
    assert.match(all.results.wipe, /^error \(denied\): .*destructive/);
    const network = await run(["--yes=network"]);
    assert.match(network.results.fetch, /^error \(failed\): exit code [1-9]/);
    assert.match(network.results.wipe, /^error \(denied\)/);
  },
);

sandboxTest("--trust untrusted lets only reads run", async () => {
  const { result, results } = await run(["--trust", "untrusted", "--yes"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(results.fetch, /^error \(denied\): Not run/);
  assert.match(results.wipe, /^error \(denied\): Not run/);
  assert.doesNotMatch(results.look, /^error \(denied\)/);
});

sandboxTest(
  "trustLevel trusted runs the classes config names without asking, and nothing more",
  async () => {
    const { result, results } = await run(
      [],
      '{ "trustLevel": "trusted", "trustedClasses": ["network"] }',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      results.fetch,
      /^error \(failed\): exit code [1-9]/,
      "network is pre-approved: it ran",
    );
    assert.match(
      results.wipe,
      /^error \(denied\)/,
      "destructive still asks, and nobody can answer",
    );
  },
);
