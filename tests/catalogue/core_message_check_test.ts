import assert from "node:assert/strict";
import { z } from "zod";
import { ToolChildServer } from "../../tools/_catalogue/child_server.ts";
import { CoreMessageSchema, parseMessage } from "../../tools/_catalogue/child_protocol.ts";
import { acceptCoreMessage } from "../../tools/_catalogue/core_message_check.ts";
import { inMemoryTransportPair } from "../../tools/_catalogue/line_transport.ts";

/** Messages the core sends, one of each shape. */
const VALID: Record<string, unknown>[] = [
  { type: "call", id: 0, tool: "read_file", args: { path: "a.txt" }, workspace: "/w" },
  {
    type: "call",
    id: 7,
    tool: "write_file",
    args: { path: "b", content: "x", nested: { a: [1, null] } },
    workspace: "/srv/ws",
    roots: ["/r1", "/r2"],
    grants: ["/home/u/.bashrc"],
    protect: [".git/hooks", "conf/x"],
  },
  { type: "call", id: 2 ** 53 - 1, tool: "x".repeat(128), args: {}, workspace: "/", roots: [] },
  { type: "cancel", id: 3, reason: "aborted" },
  { type: "cancel", id: 4, reason: "timeout" },
  { type: "preload" },
];

/** Values a field is replaced with in the mutations. */
const ODD: unknown[] = [
  null,
  undefined,
  -1,
  1.5,
  -0,
  2 ** 53,
  Number.NaN,
  "",
  "x",
  "rel/path",
  "/abs",
  "x".repeat(129),
  true,
  [],
  ["/a"],
  ["rel"],
  [1],
  {},
  { a: 1 },
  "aborted",
  "call",
  "cancel",
  "preload",
];

/** Every message with one field replaced, removed or added, plus odd whole values. */
function mutations(): unknown[] {
  const out: unknown[] = [null, [], "call", 1, { type: "nope" }, {}];
  for (const message of VALID) {
    const keys = [...Object.keys(message), "roots", "grants", "protect", "extra", "__proto__"];
    for (const key of keys) {
      const { [key]: _, ...without } = message;
      out.push(without);
      for (const value of ODD) out.push({ ...message, [key]: value });
    }
    // `__proto__` as an own key (JSON.parse makes one), in the message and in its arguments.
    out.push(JSON.parse(JSON.stringify(message).replace(/^\{/, '{"__proto__":{},')));
    if ("args" in message) {
      out.push({ ...message, args: JSON.parse('{"__proto__":{"x":1},"path":"a"}') });
      out.push({ ...message, args: Object.create({ inherited: 1 }) });
    }
  }
  return out;
}

Deno.test("the child's fast check accepts every message the core sends, unchanged", () => {
  for (const message of VALID) {
    const json = JSON.parse(JSON.stringify(message));
    assert.equal(acceptCoreMessage(json), json, JSON.stringify(message));
    const parsed = CoreMessageSchema.safeParse(json);
    assert.ok(parsed.success);
    assert.deepEqual(parsed.data, json);
  }
});

Deno.test("the fast check never accepts what the protocol's schema refuses or changes", () => {
  let accepted = 0;
  let refused = 0;
  const all = mutations();
  for (const value of all) {
    const fast = acceptCoreMessage(value);
    const schema = CoreMessageSchema.safeParse(value);
    if (fast !== undefined) {
      accepted++;
      assert.ok(schema.success, `accepted but the schema refuses: ${JSON.stringify(value)}`);
      assert.deepEqual(schema.data, value, `the schema changes it: ${JSON.stringify(value)}`);
    } else if (!schema.success) refused++;
  }
  // The corpus exercises both sides (so the check above cannot pass by accepting nothing).
  assert.ok(all.length > 1000, `${all.length} cases`);
  assert.ok(accepted > 50 && refused > 500, `${accepted} accepted, ${refused} refused`);
});

Deno.test("a malformed line is refused with the schema's description, as a typed answer", async () => {
  const server = new ToolChildServer({
    name: "test",
    entries: () => Promise.resolve([{ name: "echo", args: z.strictObject({}) }]),
    load: () => Promise.resolve(() => "ok"),
  });
  const lines = [
    "not json",
    "[1]",
    '{"type":"call"}',
    '{"type":"call","id":5,"tool":"echo","args":{},"workspace":"rel"}',
    '{"type":"call","id":6,"tool":"echo","args":[],"workspace":"/"}',
    '{"type":"cancel","id":7,"reason":"later"}',
    '{"type":"preload","extra":1}',
    '{"type":"call","id":-1,"tool":"echo","args":{},"workspace":"/"}',
  ];
  for (const line of lines) {
    const answer = await server.answer(line);
    const expected = parseMessage(CoreMessageSchema, line);
    assert.ok(!expected.ok, line);
    const id = (expected.json as { id?: unknown } | null)?.id;
    if (typeof id === "number" && Number.isInteger(id) && id >= 0) {
      assert.deepEqual(answer, {
        type: "result",
        id,
        ok: false,
        error: { kind: "invalid_arguments", message: `Malformed request: ${expected.problem}` },
      });
    } else {
      assert.deepEqual(answer, {
        type: "rejected",
        message: `Malformed message: ${expected.problem}`,
      });
    }
  }
});

Deno.test("a line only the schema can accept keeps its place: the cancel after it finds it", async () => {
  const server = new ToolChildServer({
    name: "test",
    entries: [{ name: "wait", args: z.record(z.string(), z.unknown()) }],
    load: () =>
      Promise.resolve((_args: unknown, context: { signal: AbortSignal }) => {
        return new Promise<string>((_, reject) =>
          context.signal.addEventListener("abort", () => reject(context.signal.reason))
        );
      }),
  });
  const [core, child] = inMemoryTransportPair();
  const serving = server.serve(child);
  // `-0` and an own `__proto__` key pass the schema but not the fast check.
  await core.send('{"type":"call","id":-0,"tool":"wait","args":{"__proto__":1},"workspace":"/"}');
  await core.send('{"type":"cancel","id":0,"reason":"aborted"}');
  await core.close();
  const answers = (await Array.fromAsync(core.receive())).map((line) => JSON.parse(line));
  await serving;
  assert.deepEqual(answers, [{
    type: "result",
    id: 0,
    ok: false,
    error: { kind: "cancelled", message: "wait was cancelled and stopped" },
  }]);
});
