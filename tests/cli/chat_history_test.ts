import assert from "node:assert/strict";
import { join } from "node:path";
import { ChatHistory } from "../../src/cli/chat_history.ts";

Deno.test("ChatHistory keeps inputs (multi-line ones whole) in a 0600 file, the newest 500", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "history.jsonl");
    const history = new ChatHistory(path);
    await history.load();
    await history.add("first");
    await history.add("two\nlines");
    await history.add("two\nlines");
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const again = new ChatHistory(path);
    await again.load();
    assert.deepEqual(again.entries, ["first", "two\nlines"]);
    for (let i = 0; i < 510; i++) await again.add(`entry ${i}`);
    const last = new ChatHistory(path);
    await last.load();
    assert.equal(last.entries.length, 500);
    assert.equal(last.entries.at(-1), "entry 509");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ChatHistory skips torn and foreign lines, and a missing file is an empty history", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "history.jsonl");
    const missing = new ChatHistory(path);
    await missing.load();
    assert.deepEqual(missing.entries, []);
    await Deno.writeTextFile(path, '"ok"\n{"not":"a string"}\n"tor');
    const history = new ChatHistory(path);
    await history.load();
    assert.deepEqual(history.entries, ["ok"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
