/**
 * The interactive terminal session (issue 16) driven through a real pseudo-terminal (tmux)
 * against the fake model: a task with a status line while the turn is delayed, a background
 * server from the first turn, Esc during a slow shell call (the process is gone, the journal
 * says interrupted), a follow-up the model receives after the interrupted result, curl reaching
 * the first turn's server, an approval answered with one key, /undo, /exit with 0.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { NSENTER } from "../../src/broker/host_network.ts";
import {
  type RecordedRequest,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { processesWith, uniqueSleep } from "../broker/_processes.ts";
import { odekFixture, ROOT, toolMessages } from "./_odek.ts";
import { pollUntil, startTmuxOdek, tmuxAvailable } from "./_tmux.ts";

type Message = { role: string; content?: string; tool_call_id?: string };

const hasNode = (() => {
  try {
    return Deno.statSync("/usr/bin/node").isFile;
  } catch {
    return false;
  }
})();

/** A curl that waits (inside the sandbox) for the server to answer, up to 10 s. */
const poll = (port: number) =>
  `for i in $(seq 100); do curl -sf -m 2 http://127.0.0.1:${port}/ && exit 0; sleep 0.1; done; echo unreachable; exit 1`;

sandboxTest(
  "odek chat: status line, Esc interrupts a slow shell call, follow-ups on one host, approvals with one key, /undo, /exit",
  async () => {
    if (!tmuxAvailable) return;
    if (!hasNode || NSENTER === undefined) {
      console.error("skipping: node and nsenter are needed (apt-get install nodejs util-linux)");
      return;
    }
    await using fx = await odekFixture();
    const notes = join(fx.workspace, "notes.txt");
    await Deno.writeTextFile(notes, "original bytes\n");
    const outside = join(fx.home, "outside");
    await Deno.mkdir(outside);
    const canary = join(outside, "canary.txt");
    await Deno.writeTextFile(canary, "");
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const marker = uniqueSleep();
    const server =
      `node -e 'require("http").createServer((q, r) => r.end("hello from bg")).listen(${port}, "127.0.0.1")'`;
    const requests: RecordedRequest[] = [];
    await using model = await startFakeOpenAIServer({
      turns: (request, i) => {
        requests.push(request);
        switch (i) {
          case 0:
            return {
              delayMs: 2500,
              toolCalls: [{ id: "bg", name: "bg_start", arguments: { command: server } }],
            };
          case 1:
            return {
              text: `# Server\n\nThe server is **up** on port ${port}.\n\n- \`GET /\` answers\n`,
            };
          case 2:
            return { toolCalls: [{ id: "slow", name: "shell", arguments: { command: marker } }] };
          case 3:
            return {
              toolCalls: [
                { id: "curl", name: "shell", arguments: { command: poll(port) } },
                {
                  id: "note",
                  name: "write_file",
                  arguments: { path: "notes.txt", content: "changed\n" },
                },
                { id: "out", name: "shell", arguments: { command: `echo approved >> ${canary}` } },
              ],
            };
          default:
            return { text: "All three done." };
        }
      },
    });
    await using odek = await startTmuxOdek({
      name: "session",
      args: ["chat", "--base-url", model.url, "--model", "fake-model"],
      env: { ...fx.env, ODEK_API_KEY: "test-key" },
      cwd: fx.workspace,
    });
    try {
      await odek.waitFor(/odek interactive/, "started");
      await odek.type("start the dev server");
      await odek.press("Enter");
      // The status line while the scripted turn is delayed.
      await odek.waitFor(/thinking · \d+\.\d s · Esc to interrupt/, "status-line");
      const first = await odek.waitFor(/✓ .*tool call/, "first-turn");
      assert.match(first, /The server is up on port/, "markdown rendered: no ** left");
      assert.doesNotMatch(first, /\*\*up\*\*/);
      assert.match(first, /▸ bg_start/);

      await odek.type("run the slow check");
      await odek.press("Enter");
      await odek.waitFor(/running shell sleep 4242/, "slow-call");
      await pollUntil(
        () => (processesWith(marker).length > 0 ? true : undefined),
        30_000,
        () => "the slow shell call never started",
      );
      await odek.press("Escape");
      await odek.waitFor(/■ interrupted/, "interrupted");
      await pollUntil(
        () => (processesWith(marker).length === 0 ? true : undefined),
        30_000,
        () => `processes of the interrupted call still alive: ${processesWith(marker)}`,
      );
      const [journal] = [...Deno.readDirSync(join(fx.odekHome, "sessions"))]
        .filter((e) => e.name.endsWith(".jsonl"));
      const records = (await Deno.readTextFile(join(fx.odekHome, "sessions", journal.name)))
        .trim().split("\n").map((line) => JSON.parse(line));
      const slowResult = records.find((r) =>
        r.t === "message" && r.message?.role === "tool" && r.message.tool_call_id === "slow"
      );
      assert.match(String(slowResult?.message.content), /interrupted/);

      await odek.type("curl the server and note it");
      await odek.press("Enter");
      await odek.waitFor(/y = yes once/, "approval");
      await odek.press("y");
      await odek.waitFor(/All three done\./, "follow-up");
      // The model got the interrupted result before the follow-up message.
      const messages: Message[] = requests[3].body.messages;
      const slowAt = messages.findIndex((m) => m.role === "tool" && m.tool_call_id === "slow");
      const userAt = messages.findLastIndex((m) => m.role === "user");
      assert.ok(slowAt >= 0 && slowAt < userAt, JSON.stringify(messages.map((m) => m.role)));
      assert.match(String(messages[userAt].content), /curl the server and note it/);
      const results = Object.fromEntries(
        toolMessages(requests[4].body).map((m) => [m.tool_call_id, m.content]),
      );
      assert.match(results.curl, /hello from bg/, "the first turn's background server answered");
      assert.equal(await Deno.readTextFile(notes), "changed\n");
      assert.equal(await Deno.readTextFile(canary), "approved\n", "approved with one key");

      await odek.type("/undo");
      await odek.press("Enter");
      await odek.waitFor(/undid turn 3/, "undo");
      assert.equal(await Deno.readTextFile(notes), "original bytes\n");

      await odek.type("/exit");
      await odek.press("Enter");
      const code = await odek.exitCode();
      assert.equal(code, 0, `exit code ${code}:\n${await odek.screen()}`);
    } finally {
      await Deno.writeTextFile(
        join(ROOT, "test-artefacts", "interactive", "session", "99-last.txt"),
        await odek.screen(),
      ).catch(() => {});
      for (const pid of processesWith(marker)) Deno.kill(pid, "SIGKILL");
    }
  },
);
