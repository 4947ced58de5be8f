/**
 * Issue 14, case 5: loops and cycles are stopped. A cycle of one to three tool calls with the same
 * results gets one hint after three rounds and ends the run `stalled` (exit 5) three rounds
 * later, the session saved; differing results never count; polling a background job counts only
 * while its state and output size stay the same. Against the fake server in strict mode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ScriptedTurn, startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { uniqueSleep } from "../broker/_processes.ts";
import { type OdekFixture, odekFixture } from "./_odek.ts";

async function fixture(): Promise<OdekFixture> {
  const fx = await odekFixture();
  for (const name of ["a.txt", "b.txt", "c.txt"]) {
    await Deno.writeTextFile(join(fx.workspace, name), `${name}\n`);
  }
  return fx;
}

const read = (path: string) => ({ name: "read_file", arguments: { path } });
/** `rounds` rounds of `cycle`, one call per turn, then an answer the loop should never reach. */
const cycleTurns = (cycle: ReturnType<typeof read>[], rounds: number): ScriptedTurn[] => [
  ...Array.from({ length: rounds * cycle.length }, (_, i) => ({
    toolCalls: [cycle[i % cycle.length]],
  })),
  { text: "never reached" },
];

function events(stdout: string): { type: string; data: Record<string, unknown> }[] {
  return stdout.trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("odek run: a cycle of 1, 2 or 3 reads gets one hint, then stops with exit 5 and a saved session", async (t) => {
  const cases: [string, ReturnType<typeof read>[]][] = [
    ["the same read", [read("a.txt")]],
    ["two reads in turn", [read("a.txt"), read("b.txt")]],
    ["three reads in turn", [read("a.txt"), read("b.txt"), read("c.txt")]],
  ];
  for (const [name, cycle] of cases) {
    await t.step(name, async () => {
      await using fx = await fixture();
      await using server = await startFakeOpenAIServer({
        turns: cycleTurns(cycle, 10),
        strict: true,
      });
      const result = await fx.run([
        "run",
        "--session",
        "loop",
        "--base-url",
        server.url,
        "--json",
        "read",
      ]);
      assert.equal(result.code, 5, result.stderr);
      // Three rounds, a hint, three more: six rounds, never the 90-turn cap.
      assert.equal(server.requests.length, 6 * cycle.length);
      assert.ok(server.requests.every((r) => r.refused === undefined));
      const stalls = events(result.stdout).filter((e) => e.type === "stall_detected");
      assert.deepEqual(stalls.map((e) => [e.data.action, e.data.cycle_length]), [
        ["hint", cycle.length],
        ["stop", cycle.length],
      ]);
      const failed = events(result.stdout).at(-1)!;
      assert.equal(failed.type, "run_failed");
      assert.equal(failed.data.error_class, "STALLED");
      assert.match(
        result.stderr,
        /Stopped: the run was looping .* continue it with a new instruction/,
      );
      const hints = server.requests.map((r) => r.body.messages.at(-1)).filter((m) =>
        m.role === "user" && m.content.startsWith("[odek]")
      );
      assert.equal(hints.length, 1, "one hint");
      assert.match(hints[0].content, /If it repeats 3 more times, odek stops the run\./);
      // Saved: a resume with a new message recovers.
      await using next = await startFakeOpenAIServer({
        turns: [{ text: "ok, stopping" }],
        strict: true,
      });
      const resumed = await fx.run([
        "continue",
        "loop",
        "stop reading and say what you found",
        "--base-url",
        next.url,
      ]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(next.requests[0].refused, undefined, next.requests[0].refusal);
    });
  }
});

Deno.test("odek run: the same call whose result changes every time is no stall", async () => {
  await using fx = await fixture();
  const turns: ScriptedTurn[] = Array.from({ length: 8 }, (_, i) => ({
    toolCalls: [{ name: "write_file", arguments: { path: "n.txt", content: `${i}\n` } }],
  }));
  // Not the same call (the content differs), and the read that follows differs too.
  const reads: ScriptedTurn[] = Array.from({ length: 8 }, (_, i) => [
    turns[i],
    { toolCalls: [read("n.txt")] },
  ]).flat();
  await using server = await startFakeOpenAIServer({
    turns: [...reads, { text: "done" }],
    strict: true,
  });
  const result = await fx.run(["run", "--base-url", server.url, "--json", "count"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(events(result.stdout).filter((e) => e.type === "stall_detected").length, 0);
});

sandboxTest(
  "odek run: polling a background job counts only while its state and output size stay the same",
  async () => {
    await using fx = await fixture();
    const marker = uniqueSleep();
    const status = { name: "bg_status", arguments: { id: "bg1" } };
    await using growing = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [{
            name: "bg_start",
            arguments: { command: "while :; do echo tick; sleep 0.02; done" },
          }],
        },
        // Each poll comes 150 ms after the one before: the job has printed more.
        ...Array.from({ length: 7 }, () => ({ toolCalls: [status], delayMs: 150 })),
        { text: "it keeps printing" },
      ],
      strict: true,
    });
    const first = await fx.run(["run", "--base-url", growing.url, "--json", "watch the build"]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(events(first.stdout).filter((e) => e.type === "stall_detected").length, 0);

    await using stuck = await startFakeOpenAIServer({
      turns: [
        { toolCalls: [{ name: "bg_start", arguments: { command: marker } }] },
        ...Array.from({ length: 7 }, () => ({ toolCalls: [status] })),
        { text: "never reached" },
      ],
      strict: true,
    });
    const second = await fx.run(["run", "--base-url", stuck.url, "--json", "wait for it"]);
    assert.equal(second.code, 5, second.stderr);
    assert.deepEqual(
      events(second.stdout).filter((e) => e.type === "stall_detected").map((e) => e.data.action),
      ["hint", "stop"],
    );
  },
);

Deno.test("odek run: the stall thresholds are config keys", async () => {
  await using fx = await fixture();
  await Deno.writeTextFile(
    join(fx.odekHome, "config.jsonc"),
    JSON.stringify({ stall: { hintAfter: 2, stopAfter: 1 } }),
  );
  await using server = await startFakeOpenAIServer({
    turns: cycleTurns([read("a.txt")], 10),
    strict: true,
  });
  const result = await fx.run(["run", "--base-url", server.url, "read"]);
  assert.equal(result.code, 5, result.stderr);
  assert.equal(server.requests.length, 3);
});
