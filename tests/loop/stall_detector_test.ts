import assert from "node:assert/strict";
import type { ToolCall } from "../../src/_util/chat_message.ts";
import { StallDetector, type StallEntry } from "../../src/loop/stall_detector.ts";

const call = (name: string, args: string): ToolCall => ({
  id: "c",
  type: "function",
  function: { name, arguments: args },
});
/** A call and its result (the same text: the same result). */
const entry = (name: string, args: string, result = "same result"): StallEntry => ({
  call: call(name, args),
  result,
});
const ls = () => entry("shell", '{"command":"ls"}');

Deno.test("StallDetector hints at the third identical call with the same result, across batches", () => {
  const d = new StallDetector();
  assert.equal(d.observe([ls()]), undefined);
  assert.equal(d.observe([ls()]), undefined);
  assert.deepEqual(d.observe([ls()]), {
    action: "hint",
    names: ["shell"],
    name: "shell",
    repeats: 3,
  });
});

Deno.test("StallDetector compares arguments canonically: key order and whitespace do not matter", () => {
  const d = new StallDetector();
  const stall = d.observe([
    entry("read_file", '{"path":"a.txt","offset":1,"opts":{"x":1,"y":[1,2]}}'),
    entry("read_file", '{ "opts": {"y":[1, 2], "x":1}, "offset": 1, "path": "a.txt" }'),
    entry("read_file", '{"offset":1,"path":"a.txt","opts":{"y":[1,2],"x":1}}'),
  ]);
  assert.equal(stall?.action, "hint");
  assert.equal(stall?.repeats, 3);
});

Deno.test("StallDetector: a different name, arguments, array order or result break the cycle", async (t) => {
  const cases: [string, StallEntry[]][] = [
    ["different arguments", [
      ls(),
      ls(),
      entry("shell", '{"command":"ls -a"}'),
      ls(),
    ]],
    ["array order is significant", [
      entry("x", '{"a":[1,2]}'),
      entry("x", '{"a":[2,1]}'),
      entry("x", '{"a":[1,2]}'),
    ]],
    ["text that is not JSON is compared as text", [
      entry("y", "{bad"),
      entry("y", "{bad "),
      entry("y", "{bad"),
    ]],
    ["the same call whose result changes (a build's growing output)", [
      entry("shell", '{"command":"tail build.log"}', "1 line"),
      entry("shell", '{"command":"tail build.log"}', "2 lines"),
      entry("shell", '{"command":"tail build.log"}', "3 lines"),
      entry("shell", '{"command":"tail build.log"}', "4 lines"),
      entry("shell", '{"command":"tail build.log"}', "5 lines"),
      entry("shell", '{"command":"tail build.log"}', "6 lines"),
      entry("shell", '{"command":"tail build.log"}', "7 lines"),
    ]],
  ];
  for (const [name, entries] of cases) {
    await t.step(name, () => assert.equal(new StallDetector().observe(entries), undefined));
  }
});

Deno.test("StallDetector finds cycles of two and three calls (issue 14, case 5)", async (t) => {
  await t.step("git status, git diff, … (one call per batch)", () => {
    const d = new StallDetector();
    const status = () => entry("shell", '{"command":"git status"}', "clean");
    const diff = () => entry("shell", '{"command":"git diff"}', "");
    const seen = [status(), diff(), status(), diff(), status()].map((e) => d.observe([e]));
    assert.deepEqual(seen, [undefined, undefined, undefined, undefined, undefined]);
    assert.deepEqual(d.observe([diff()]), {
      action: "hint",
      names: ["shell", "shell"],
      name: "shell, shell",
      repeats: 3,
    });
  });
  await t.step("three reads in a row, three times (one batch each)", () => {
    const d = new StallDetector();
    const batch = () => [
      entry("read_file", '{"path":"a"}', "A"),
      entry("read_file", '{"path":"b"}', "B"),
      entry("read_file", '{"path":"c"}', "C"),
    ];
    assert.equal(d.observe(batch()), undefined);
    assert.equal(d.observe(batch()), undefined);
    const stall = d.observe(batch());
    assert.equal(stall?.action, "hint");
    assert.deepEqual(stall?.names, ["read_file", "read_file", "read_file"]);
  });
  await t.step(
    "a three-call cycle that ends in a repeated pair is still a three-call cycle",
    () => {
      const d = new StallDetector();
      const cycle =
        () => [entry("glob", "{}", "x"), entry("grep", "{}", "y"), entry("grep", "{}", "y")];
      d.observe(cycle());
      d.observe(cycle());
      assert.deepEqual(d.observe(cycle())?.names, ["glob", "grep", "grep"]);
    },
  );
});

Deno.test("StallDetector: one hint per cycle, then three more repetitions stop the run", () => {
  const d = new StallDetector();
  const actions = Array.from({ length: 8 }, () => d.observe([ls()])?.action);
  assert.deepEqual(actions, [
    undefined,
    undefined,
    "hint",
    undefined,
    undefined,
    "stop",
    "stop",
    "stop",
  ]);
});

Deno.test("StallDetector: a cycle broken off and taken up again after its hint stops after three more", () => {
  const d = new StallDetector();
  for (let i = 0; i < 3; i++) d.observe([ls()]);
  d.observe([entry("glob", '{"pattern":"*"}', "a.txt")]);
  assert.equal(d.observe([ls()]), undefined);
  assert.equal(d.observe([ls()]), undefined);
  assert.equal(d.observe([ls()])?.action, "stop");
});

Deno.test("StallDetector: another cycle gets its own hint", () => {
  const d = new StallDetector();
  for (let i = 0; i < 3; i++) d.observe([ls()]);
  const other = () => entry("glob", '{"pattern":"*"}', "a.txt");
  assert.equal(d.observe([other()]), undefined);
  assert.equal(d.observe([other()]), undefined);
  assert.equal(d.observe([other()])?.action, "hint");
});

Deno.test("StallDetector thresholds: hintAfter 2, stopAfter 0 (hints only, every 2 more)", () => {
  const d = new StallDetector({ hintAfter: 2, stopAfter: 0 });
  const actions = Array.from({ length: 6 }, () => d.observe([ls()])?.action);
  assert.deepEqual(actions, [undefined, "hint", undefined, "hint", undefined, "hint"]);
});

Deno.test("StallDetector refuses thresholds out of range", () => {
  assert.throws(() => new StallDetector({ hintAfter: 1 }), RangeError);
  assert.throws(() => new StallDetector({ stopAfter: -1 }), RangeError);
  assert.throws(() => new StallDetector({ hintAfter: 2.5 }), RangeError);
});
