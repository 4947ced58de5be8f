import assert from "node:assert/strict";
import { decodeKeys, type Key } from "../../src/cli/decode_keys.ts";
import { TerminalKeys } from "../../src/cli/terminal_keys.ts";

const key = (name: string): Key => ({ type: "key", name } as Key);

Deno.test("decodeKeys() decodes what a terminal in raw mode sends", async (t) => {
  const cases: [string, string, Key[], string][] = [
    ["typed text", "héllo", [{ type: "text", text: "héllo" }], ""],
    ["Enter and Ctrl-J", "a\rb\n", [
      { type: "text", text: "a" },
      key("enter"),
      { type: "text", text: "b" },
      key("newline"),
    ], ""],
    ["arrows (CSI and SS3)", "\x1b[A\x1b[B\x1bOC\x1b[D", [
      key("up"),
      key("down"),
      key("right"),
      key("left"),
    ], ""],
    ["Home, End, Delete", "\x1b[H\x1b[F\x1b[1~\x1b[4~\x1b[3~", [
      key("home"),
      key("end"),
      key("home"),
      key("end"),
      key("delete"),
    ], ""],
    ["modified arrows count as arrows", "\x1b[1;5A", [key("up")], ""],
    ["Backspace both ways", "\x7f\b", [key("backspace"), key("backspace")], ""],
    ["Ctrl keys", "\x03\x04\x01\x05\x15\x0b\x17\x0c", [
      key("ctrl-c"),
      key("ctrl-d"),
      key("ctrl-a"),
      key("ctrl-e"),
      key("ctrl-u"),
      key("ctrl-k"),
      key("ctrl-w"),
      key("ctrl-l"),
    ], ""],
    ["Alt-Enter is a new line", "\x1b\r", [key("newline")], ""],
    ["Esc then Esc", "\x1b\x1b", [key("escape")], "\x1b"],
    ["a trailing Esc waits for the next byte", "x\x1b", [{ type: "text", text: "x" }], "\x1b"],
    ["a cut CSI waits", "\x1b[1", [], "\x1b[1"],
    ["a paste keeps its lines, CR LF made LF", "\x1b[200~one\r\ntwo\rthree\x1b[201~", [
      { type: "paste", text: "one\ntwo\nthree" },
    ], ""],
    ["Esc and Ctrl-C inside a paste are text of the paste", "\x1b[200~a\x1b\x03b\x1b[201~", [
      { type: "paste", text: "a\x1b\x03b" },
    ], ""],
    ["an unfinished paste is kept whole", "\x1b[200~half", [], "\x1b[200~half"],
    ["other control characters are dropped", "a\x00\x07b", [{ type: "text", text: "ab" }], ""],
    ["unknown sequences are dropped", "\x1b[99zq", [{ type: "text", text: "q" }], ""],
  ];
  for (const [name, input, keys, rest] of cases) {
    await t.step(name, () => {
      assert.deepEqual(decodeKeys(input, false), { keys, rest });
    });
  }
  await t.step("a lone Esc counts once the wait is over (final)", () => {
    assert.deepEqual(decodeKeys("\x1b", true), { keys: [key("escape")], rest: "" });
  });
});

/** A terminal input fed by the test, chunk by chunk. */
function scriptedInput() {
  const chunks: (Uint8Array | null)[] = [];
  let wake: (() => void) | undefined;
  const modes: boolean[] = [];
  return {
    modes,
    send(text: string | null) {
      chunks.push(text === null ? null : new TextEncoder().encode(text));
      wake?.();
    },
    input: {
      setRaw: (mode: boolean) => void modes.push(mode),
      async read(p: Uint8Array): Promise<number | null> {
        while (chunks.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const chunk = chunks.shift()!;
        if (chunk === null) return null;
        p.set(chunk);
        return chunk.length;
      },
    },
  };
}

Deno.test("TerminalKeys counts a lone Esc only after its wait, and Esc+[A as Up", async () => {
  const fake = scriptedInput();
  using keys = new TerminalKeys(fake.input, { escapeMs: 100 });
  fake.send("\x1b");
  fake.send("[A");
  assert.deepEqual(await keys.next(), key("up"));
  fake.send("\x1b");
  const started = performance.now();
  assert.deepEqual(await keys.next(), key("escape"));
  assert.ok(performance.now() - started >= 90, "the Esc waited for a following byte");
  fake.send(null);
  assert.equal(await keys.next(), null);
  assert.deepEqual(fake.modes, [true]);
});

Deno.test("TerminalKeys: an aborted wait leaves the key for the next reader; drain drops typed-ahead keys", async () => {
  const fake = scriptedInput();
  using keys = new TerminalKeys(fake.input);
  const controller = new AbortController();
  const waiting = keys.next(controller.signal);
  controller.abort(new Error("approval"));
  await assert.rejects(waiting, /approval/);
  fake.send("y");
  assert.deepEqual(await keys.next(), { type: "text", text: "y" });
  fake.send("n");
  await pollQueued(keys);
  keys.drain();
  fake.send("\r");
  assert.deepEqual(await keys.next(), key("enter"));
  keys[Symbol.dispose]();
  assert.deepEqual(fake.modes, [true, false], "raw mode is turned off again");
});

/** Wait until the reader has taken the last chunk in (a key is queued). */
async function pollQueued(keys: TerminalKeys): Promise<void> {
  const deadline = Date.now() + 5000;
  while (keys.pending === 0) {
    if (Date.now() > deadline) throw new Error("the key never arrived");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
