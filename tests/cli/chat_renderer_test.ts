import assert from "node:assert/strict";
import { ChatRenderer } from "../../src/cli/chat_renderer.ts";
import { completeSlash, SLASH_COMMANDS } from "../../src/cli/slash_commands.ts";
import { StatusLine } from "../../src/cli/status_line.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";

const event = (type: string, data: unknown) =>
  ({ schema: "odek.event/v1", type, run_id: "r", timestamp: "", data }) as unknown as RunEvent;

Deno.test("StatusLine shows spinner, label, elapsed time, tokens and the interrupt key; output passes around it", () => {
  let screen = "";
  let now = 0;
  const status = new StatusLine({
    out: { write: (t) => void (screen += t) },
    color: false,
    now: () => now,
    intervalMs: 60_000,
  });
  status.start("thinking");
  assert.match(screen, /⠋ thinking · 0\.0 s · Esc to interrupt$/);
  const sink = status.sink({ write: (t) => void (screen += t) });
  now = 1500;
  status.tokens(1200, 30);
  sink.write("a line\n");
  assert.ok(screen.endsWith("\r\x1b[Ka line\r\n"), JSON.stringify(screen));
  status.pause();
  status.resume();
  status.stop();
  assert.ok(screen.endsWith("\r\n"), "nothing left drawn after stop when the line was erased");
});

Deno.test("ChatRenderer: banner once per session, reasoning dimmed, answers as markdown, tool lines, tokens", () => {
  let screen = "";
  const r = new ChatRenderer({ out: { write: (t) => void (screen += t) }, color: true });
  const started = event("run_started", {
    model: "m",
    base_url: "http://127.0.0.1:9/v1",
    workspace: "/w",
    sandbox: "bwrap",
    trust: "standard",
  });
  r.startRun();
  r.handle(started);
  r.handle(event("reasoning_delta", { text: "pondering" }));
  r.handle(event("text_delta", { text: "**Done**: all `ok`.\n" }));
  r.handle(event("assistant_message", { content: "", tool_call_count: 0, finish_reason: "stop" }));
  r.handle(event("iteration_completed", { input_tokens: 10, output_tokens: 5, tools_called: 0 }));
  r.endRun();
  r.startRun();
  r.handle(started);
  r.endRun();
  assert.equal(screen.match(/m @ 127\.0\.0\.1:9/g)?.length, 1, "the banner is shown once");
  // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
  assert.match(screen, /\x1b\[2mpondering/);
  assert.match(screen, /Done/);
  assert.doesNotMatch(screen, /\*\*Done\*\*/);
});

Deno.test("completeSlash() completes command names only, and every command is listed in /help", () => {
  assert.deepEqual(completeSlash("/u"), ["/undo"]);
  assert.deepEqual(completeSlash("/model x"), []);
  assert.deepEqual(completeSlash("hello"), []);
  assert.deepEqual(
    SLASH_COMMANDS.map((c) => c.name),
    [
      "/help",
      "/status",
      "/model",
      "/trust",
      "/diff",
      "/undo",
      "/rewind",
      "/compact",
      "/new",
      "/sessions",
      "/resume",
      "/exit",
    ],
  );
});
