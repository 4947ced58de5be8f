import assert from "node:assert/strict";
import type { Key, KeyName } from "../../src/cli/decode_keys.ts";
import { type LineResult, readLine, type ReadLineOptions } from "../../src/cli/line_editor.ts";
import type { KeySource } from "../../src/cli/terminal_keys.ts";

type Step = string | KeyName | { paste: string };

/** Keys from a script: plain strings are typed text unless they name a key (`@enter`). */
function keysOf(steps: Step[]): KeySource {
  const keys: Key[] = steps.map((s) =>
    typeof s === "object"
      ? { type: "paste", text: s.paste }
      : s.startsWith("@")
      ? { type: "key", name: s.slice(1) as KeyName }
      : { type: "text", text: s }
  );
  return { next: () => Promise.resolve(keys.shift() ?? null), drain() {} };
}

async function edit(
  steps: Step[],
  options: Partial<ReadLineOptions> = {},
): Promise<{ result: LineResult; screen: string }> {
  let screen = "";
  const result = await readLine(keysOf(steps), { write: (t) => void (screen += t) }, {
    prompt: "› ",
    ...options,
  });
  return { result, screen };
}

Deno.test("readLine() edits one input", async (t) => {
  const cases: [string, Step[], LineResult, Partial<ReadLineOptions>?][] = [
    ["typed text and Enter", ["fix it", "@enter"], { type: "submit", text: "fix it" }],
    ["a paste keeps its newlines and is not sent by them", [{ paste: "one\ntwo" }, "@enter"], {
      type: "submit",
      text: "one\ntwo",
    }],
    ["a line ending in \\ continues", ["first\\", "@enter", "second", "@enter"], {
      type: "submit",
      text: "first\nsecond",
    }],
    ["Alt-Enter / Ctrl-J add a line", ["a", "@newline", "b", "@enter"], {
      type: "submit",
      text: "a\nb",
    }],
    ["Left and insert", ["ac", "@left", "b", "@enter"], { type: "submit", text: "abc" }],
    ["Home, End", ["bc", "@home", "a", "@end", "d", "@enter"], {
      type: "submit",
      text: "abcd",
    }],
    ["Backspace and Delete", ["abx", "@backspace", "c", "@home", "@delete", "@enter"], {
      type: "submit",
      text: "bc",
    }],
    ["Ctrl-W deletes a word, Ctrl-U the line", ["one two", "@ctrl-w", "@enter"], {
      type: "submit",
      text: "one ",
    }],
    ["Ctrl-U", ["one two", "@ctrl-u", "x", "@enter"], { type: "submit", text: "x" }],
    ["Ctrl-K cuts to the end", ["abc", "@left", "@left", "@ctrl-k", "@enter"], {
      type: "submit",
      text: "a",
    }],
    ["Esc clears the input", ["oops", "@escape", "ok", "@enter"], { type: "submit", text: "ok" }],
    ["Up brings the last input back", ["@up", "@enter"], { type: "submit", text: "second" }, {
      history: ["first", "second"],
    }],
    ["Up twice, then Down", ["draft", "@up", "@up", "@down", "@down", "@enter"], {
      type: "submit",
      text: "draft",
    }, { history: ["first", "second"] }],
    ["Ctrl-C with text clears it", ["half", "@ctrl-c"], { type: "ctrl-c", cleared: true }],
    ["Ctrl-C on an empty line", ["@ctrl-c"], { type: "ctrl-c", cleared: false }],
    ["Ctrl-D on an empty line leaves", ["@ctrl-d"], { type: "eof" }],
    ["end of input", ["half"], { type: "eof" }],
    ["typed-ahead text starts the input", ["@enter"], { type: "submit", text: "ahead" }, {
      initial: "ahead",
    }],
  ];
  for (const [name, steps, expected, options] of cases) {
    await t.step(name, async () => {
      assert.deepEqual((await edit(steps, options)).result, expected);
    });
  }
});

Deno.test("readLine() completes with Tab: the common prefix, or the list of candidates", async () => {
  const complete = (text: string) =>
    ["/rewind", "/resume", "/help"].filter((c) => c.startsWith(text));
  const one = await edit(["/he", "@tab", "@enter"], { complete });
  assert.deepEqual(one.result, { type: "submit", text: "/help " });
  const many = await edit(["/r", "@tab", "@enter"], { complete });
  assert.deepEqual(many.result, { type: "submit", text: "/re" });
  const listed = await edit(["/re", "@tab", "@enter"], { complete });
  assert.match(listed.screen, /\/rewind {2}\/resume/);
});

Deno.test("readLine() turns bracketed paste on while it reads and off after", async () => {
  const { screen } = await edit(["x", "@enter"]);
  assert.ok(screen.startsWith("\x1b[?2004h"));
  assert.ok(screen.endsWith("\x1b[?2004l"));
});

Deno.test("readLine() keeps the cursor on the right row of a wrapped, multi-line input", async () => {
  // 10 columns: "› " + 12 characters wraps once; moving Up must climb the rows it drew.
  const { screen } = await edit(["abcdefghijkl", "@newline", "x", "@enter"], {
    columns: () => 10,
  });
  const redraws = screen.split("\r\x1b[J");
  const last = redraws.at(-2)!; // the redraw before the final one
  assert.match(last, /abcdefghijkl\r\n… x/);
  // The final redraw climbs from the cursor's row (2: two rows of the first line, one more).
  assert.ok(redraws.at(-1)!.length > 0);
  // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
  assert.match(screen, /\x1b\[2A\r\x1b\[J›/);
});

Deno.test("readLine() rejects with the signal's reason when it aborts", async () => {
  const controller = new AbortController();
  const keys: KeySource = {
    next: (signal) =>
      new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
    drain() {},
  };
  const reading = readLine(keys, { write() {} }, { prompt: "? ", signal: controller.signal });
  controller.abort(new Error("the run ended"));
  await assert.rejects(reading, /the run ended/);
});
