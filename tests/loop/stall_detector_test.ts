import assert from "node:assert/strict";
import type { ToolCall } from "../../src/_util/chat_message.ts";
import { StallDetector } from "../../src/loop/stall_detector.ts";

const call = (name: string, args: string): ToolCall => ({
  id: "c",
  type: "function",
  function: { name, arguments: args },
});

Deno.test("StallDetector reports the third identical call, across batches", () => {
  const d = new StallDetector();
  assert.equal(d.observe([call("shell", '{"command":"ls"}')]), undefined);
  assert.equal(d.observe([call("shell", '{"command":"ls"}')]), undefined);
  assert.deepEqual(d.observe([call("shell", '{"command":"ls"}')]), { name: "shell", repeats: 3 });
});

Deno.test("StallDetector compares arguments canonically: key order and whitespace do not matter", () => {
  const d = new StallDetector();
  const stall = d.observe([
    call("read_file", '{"path":"a.txt","offset":1,"opts":{"x":1,"y":[1,2]}}'),
    call("read_file", '{ "opts": {"y":[1, 2], "x":1}, "offset": 1, "path": "a.txt" }'),
    call("read_file", '{"offset":1,"path":"a.txt","opts":{"y":[1,2],"x":1}}'),
  ]);
  assert.deepEqual(stall, { name: "read_file", repeats: 3 });
});

Deno.test("StallDetector: a different name, different arguments or array order break the streak", async (t) => {
  await t.step("different arguments", () => {
    const d = new StallDetector();
    const stall = d.observe([
      call("shell", '{"command":"ls"}'),
      call("shell", '{"command":"ls"}'),
      call("shell", '{"command":"ls -a"}'),
      call("shell", '{"command":"ls"}'),
    ]);
    assert.equal(stall, undefined);
  });
  await t.step("same arguments, another tool in between", () => {
    const d = new StallDetector();
    const stall = d.observe([
      call("glob", '{"pattern":"*"}'),
      call("glob", '{"pattern":"*"}'),
      call("grep", '{"pattern":"*"}'),
      call("glob", '{"pattern":"*"}'),
    ]);
    assert.equal(stall, undefined);
  });
  await t.step("array order is significant", () => {
    const d = new StallDetector();
    const stall = d.observe([
      call("x", '{"a":[1,2]}'),
      call("x", '{"a":[2,1]}'),
      call("x", '{"a":[1,2]}'),
    ]);
    assert.equal(stall, undefined);
  });
  await t.step("text that is not JSON is compared as text", () => {
    const d = new StallDetector();
    assert.deepEqual(d.observe([call("x", "{bad"), call("x", "{bad"), call("x", "{bad")]), {
      name: "x",
      repeats: 3,
    });
    assert.equal(d.observe([call("y", "{bad"), call("y", "{bad "), call("y", "{bad")]), undefined);
  });
});

Deno.test("StallDetector starts a new streak after reporting, so a looping run gets another hint", () => {
  const d = new StallDetector();
  const same = () => call("shell", '{"command":"make"}');
  assert.ok(d.observe([same(), same(), same()]));
  assert.equal(d.observe([same(), same()]), undefined);
  assert.deepEqual(d.observe([same()]), { name: "shell", repeats: 3 });
});

Deno.test("StallDetector refuses a threshold below 2", () => {
  assert.throws(() => new StallDetector(1), RangeError);
});
