import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

sandboxTest("a fresh ODEK_HOME outside HOME is hidden from the first run's shell", async () => {
  await using fx = await odekFixture();
  const odekHome = join(fx.home, "..", "fresh-odek-home"); // does not exist yet
  // The path comes from a file the classifier cannot read ahead of time, so it classifies the
  // command as a plain read and lets it run: only the sandbox stands in the way.
  await Deno.writeTextFile(join(fx.workspace, "target"), odekHome);
  await using server = await startFakeOpenAIServer({
    turns: [
      {
        toolCalls: [{
          id: "peek",
          name: "shell",
          arguments: { command: 'p=$(cat target); ls -A "$p/sessions"; cat "$p"/sessions/*.jsonl' },
        }],
      },
      { text: "done" },
    ],
  });
  const result = await fx.run(["run", "--base-url", server.url, "peek at the journal"], {
    env: { ODEK_HOME: odekHome },
  });
  assert.equal(result.code, 0, result.stderr);
  const [peek] = toolMessages(server.requests[1].body);
  assert.match(peek.content, /^error \(failed\): exit code [1-9]/);
  assert.doesNotMatch(peek.content, /peek at the journal/, "the live journal was readable");
  assert.equal((await Deno.stat(join(odekHome, "sessions"))).mode! & 0o777, 0o700);
});
