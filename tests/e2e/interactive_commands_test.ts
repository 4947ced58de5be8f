/**
 * The interactive session's entry points and slash commands through tmux against the fake
 * model: `odek continue` at a terminal stays open (and `--print` does not), a multi-line paste
 * is one message, /status, /model (list and switch), /trust (refused above the configuration),
 * /diff, /compact, /sessions, /new, Ctrl-C twice; `odek` alone opens a session and Ctrl-D leaves.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";
import { startTmuxOdek, tmuxAvailable } from "./_tmux.ts";

type Message = { role: string; content?: string };

const lastUser = (request: RecordedRequest) =>
  String((request.body.messages as Message[]).findLast((m) => m.role === "user")?.content);

Deno.test({
  name:
    "odek continue at a terminal stays open for slash commands and more messages; --print is one run",
  ignore: !tmuxAvailable,
  async fn() {
    await using fx = await odekFixture();
    const requests: RecordedRequest[] = [];
    let answers = 0;
    await using model = await startFakeOpenAIServer({
      models: ["fake-model", "other-model"],
      turns: (request) => {
        requests.push(request);
        if (!request.body.tools?.length) return { text: "digest: the user said hello twice" };
        answers++;
        return { text: `answer ${answers}` };
      },
    });
    const first = await fx.run(["run", "--session", "s1", "--base-url", model.url, "hello"]);
    assert.equal(first.code, 0, first.stderr);

    const env = { ...fx.env, ODEK_API_KEY: "test-key" };
    await using odek = await startTmuxOdek({
      name: "continue",
      args: ["continue", "s1", "hello again", "--base-url", model.url],
      env,
      cwd: fx.workspace,
    });
    await odek.waitFor(/answer 2[\s\S]*✓[\s\S]*› $/m, "continued-and-open");

    await odek.type("/status");
    await odek.press("Enter");
    await odek.waitFor(/session {4}s1[\s\S]*spent/, "status");

    await odek.type("/model");
    await odek.press("Enter");
    await odek.waitFor(/ {2}fake-model\n {2}other-model\nnow: gpt-4.1-mini/, "models");
    await odek.type("/model other-model");
    await odek.press("Enter");
    await odek.waitFor(/model other-model for the next turns/, "model-switched");

    await odek.type("/trust trusted");
    await odek.press("Enter");
    await odek.waitFor(/refused: your configuration allows up to standard/, "trust-refused");
    await odek.type("/trust untrusted");
    await odek.press("Enter");
    await odek.waitFor(/trust untrusted for the next turns/, "trust-lowered");

    await odek.type("/diff");
    await odek.press("Enter");
    await odek.waitFor(/this session changed no file/, "diff");

    await odek.type("/compact");
    await odek.press("Enter");
    await odek.waitFor(/your next message starts by folding the 2 earlier turn/, "compact");
    // A paste keeps its newlines and is sent as one message by the Enter after it.
    await odek.paste("line one\nline two");
    await odek.press("Enter");
    await odek.waitFor(/answer 3/, "after-compact");
    const third = requests.at(-1)!;
    assert.equal(third.body.model, "other-model", "the switched model answers");
    assert.equal(lastUser(third), "line one\nline two");
    assert.ok(requests.some((r) => !r.body.tools?.length), "a compaction side call was made");
    assert.match(JSON.stringify(third.body.messages), /digest: the user said hello twice/);
    assert.doesNotMatch(JSON.stringify(third.body.messages), /answer 1/, "earlier turns folded");

    await odek.type("/sessions");
    await odek.press("Enter");
    await odek.waitFor(/\* s1 /, "sessions");
    await odek.type("/new");
    await odek.press("Enter");
    await odek.waitFor(/your next message starts a new one/, "new");
    await odek.type("/resume");
    await odek.press("Enter");
    await odek.waitFor(/1 {2}s1 .*\nresume session \(1-1, Enter to cancel\): $/m, "resume-picker");
    await odek.type("1");
    await odek.press("Enter");
    await odek.waitFor(/resumed session s1 \(3 turns\)/, "resumed");
    await odek.type("/rewind");
    await odek.press("Enter");
    await odek.waitFor(/rewind to before turn \(1-3, Enter to cancel\): $/m, "rewind-picker");
    await odek.press("Enter");
    await odek.type("/rewind 9");
    await odek.press("Enter");
    await odek.waitFor(/no turn 9: the turns are 1 to 3/, "rewind-bad-turn");

    await odek.press("C-c");
    await odek.waitFor(/Ctrl-C again to leave/, "ctrl-c-once");
    await odek.press("C-c");
    assert.equal(await odek.exitCode(), 0);

    // --print: one run, the one-shot output, and the run's exit code.
    await using printed = await startTmuxOdek({
      name: "continue-print",
      args: ["continue", "s1", "once more", "--print", "--base-url", model.url],
      env,
      cwd: fx.workspace,
      raw: true,
    });
    assert.equal(await printed.exitCode(), 0);
    const screen = await printed.screen();
    // The failing input: Deno's progress bar clears the line (ESC[2K ESC[J) when odek loads a
    // module later, e.g. the host's parts while the answer streams, erasing the streamed text;
    // deno runs odek with --quiet, which draws no progress bar.
    assert.ok(
      !(await printed.raw()).includes("\x1b[2K\x1b[J"),
      "deno's progress bar wrote to odek's terminal",
    );
    assert.match(screen, /answer 4/);
    assert.match(screen, /odek: done · /, "the one-shot summary line");
    assert.doesNotMatch(screen, /odek interactive|› /);
  },
});

Deno.test({
  name: "odek with no command at a terminal opens an interactive session; Ctrl-D leaves with 0",
  ignore: !tmuxAvailable,
  async fn() {
    await using fx = await odekFixture();
    await using model = await startFakeOpenAIServer({ turns: [{ text: "## Hi\n\nready" }] });
    await using odek = await startTmuxOdek({
      name: "bare",
      args: [],
      env: { ...fx.env, ODEK_BASE_URL: model.url, ODEK_API_KEY: "test-key" },
      cwd: fx.workspace,
    });
    await odek.waitFor(/odek interactive/, "opened");
    await odek.type("/help");
    await odek.press("Enter");
    await odek.waitFor(/\/resume \[id\][\s\S]*Esc: clear the input, or interrupt a run/, "help");
    await odek.type("hi");
    await odek.press("Enter");
    await odek.waitFor(/ready[\s\S]*✓/, "answered");
    await odek.press("C-d");
    assert.equal(await odek.exitCode(), 0);
  },
});
