import assert from "node:assert/strict";
import { FILE_ARGS_CHECKS } from "../../tools/_catalogue/file_args_check.ts";
import { FILE_TOOLS } from "../../tools/_catalogue/file_tools.ts";
import { ToolChildServer } from "../../tools/_catalogue/child_server.ts";

const SCHEMAS = new Map(FILE_TOOLS.map((entry) => [entry.name as string, entry.args]));
const CHECKS = new Map(FILE_ARGS_CHECKS.map((tool) => [tool.name, tool]));

/** Arguments the core sends (zod's output, defaults filled) and a model writes (raw). */
const VALID: Record<string, Record<string, unknown>[]> = {
  read_file: [
    { path: "a.txt" },
    { path: "a.txt", offset: 1, limit: 500 },
    { path: "/w/x".padEnd(4096, "y"), offset: 2 ** 53 - 1, limit: 2000 },
  ],
  write_file: [
    { path: "b", content: "" },
    { path: "b", content: "x\n".repeat(100) },
    { path: "b", content: "a".repeat(400_000) },
    { path: "b", content: "é".repeat(500_000) },
  ],
  patch: [
    { path: "p", old_string: "a", new_string: "" },
    { path: "p", diff: "@@ -1 +1 @@\n-a\n+b\n" },
  ],
  search_files: [
    { pattern: "x" },
    { pattern: "x", path: "src", include: "**/*.ts", ignore_case: true, max_results: 500 },
  ],
  glob: [{ pattern: "**/*.ts" }, { pattern: "*", path: "." }],
  file_info: [{ path: "." }],
  tree: [{}, { path: "src", depth: 10, max_entries: 1000 }],
  head_tail: [{ path: "a" }, { path: "a", from: "tail", lines: 2000 }],
};

/** Values a field is replaced with in the mutations. */
const ODD: unknown[] = [
  null,
  -1,
  0,
  -0,
  1,
  1.5,
  10,
  11,
  20,
  500,
  501,
  1000,
  1001,
  2000,
  2001,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  ".",
  "x",
  "1",
  "head",
  "tail",
  "middle",
  "x".repeat(1000),
  "x".repeat(1001),
  "x".repeat(1024),
  "x".repeat(1025),
  "x".repeat(4096),
  "x".repeat(4097),
  true,
  false,
  [],
  ["a"],
  {},
  { a: 1 },
];

/** Strings around the 1 MiB cap of content fields (UTF-8 bytes, not UTF-16 units). */
const BIG: string[] = [
  "a".repeat(1024 * 1024),
  "a".repeat(1024 * 1024 + 1),
  "é".repeat(512 * 1024),
  "é".repeat(512 * 1024 + 1),
  "😀".repeat(256 * 1024),
  "😀".repeat(256 * 1024 + 1),
];
const CONTENT_KEYS = new Set(["content", "old_string", "new_string", "diff"]);
const KEYS = [
  "path",
  "offset",
  "limit",
  "content",
  "old_string",
  "new_string",
  "diff",
  "pattern",
  "include",
  "ignore_case",
  "max_results",
  "depth",
  "max_entries",
  "from",
  "lines",
  "extra",
];

/** Every valid argument object with one field replaced, removed or added, and odd objects. */
function mutations(tool: string): unknown[] {
  const out: unknown[] = [{}, Object.create({ path: "a" }), JSON.parse('{"__proto__":{}}')];
  for (const args of VALID[tool]) {
    const json = JSON.stringify(args);
    out.push(JSON.parse(`{"__proto__":{"path":"a"}${json === "{}" ? "}" : `,${json.slice(1)}`}`));
    out.push({ ...args, extra: undefined });
    for (const key of KEYS) {
      const { [key]: _, ...without } = args;
      out.push(without);
      for (const value of ODD) out.push({ ...args, [key]: value });
      if (CONTENT_KEYS.has(key)) { for (const value of BIG) out.push({ ...args, [key]: value }); }
    }
  }
  return out;
}

Deno.test("every file tool has a fast check, with its catalogue entry's name and handler", () => {
  assert.deepEqual(FILE_ARGS_CHECKS.map((t) => t.name), FILE_TOOLS.map((e) => e.name));
  for (const entry of FILE_TOOLS) assert.deepEqual(CHECKS.get(entry.name)?.handler, entry.handler);
  assert.deepEqual(Object.keys(VALID), FILE_TOOLS.map((e) => e.name));
});

Deno.test("the fast check accepts the arguments the core sends, as the schema parses them", () => {
  for (const [tool, list] of Object.entries(VALID)) {
    for (const args of list) {
      const parsed = SCHEMAS.get(tool)!.parse(args);
      assert.deepEqual(CHECKS.get(tool)!.check(args), parsed, `${tool} ${JSON.stringify(args)}`);
      // And what the core sends, zod's output, again.
      assert.deepEqual(CHECKS.get(tool)!.check(parsed), parsed, `${tool} parsed`);
    }
  }
});

Deno.test("the fast check never accepts what a file tool's schema refuses, or parses otherwise", () => {
  let accepted = 0;
  let refused = 0;
  let cases = 0;
  for (const tool of Object.keys(VALID)) {
    for (const args of mutations(tool)) {
      cases++;
      const fast = CHECKS.get(tool)!.check(args as Record<string, unknown>);
      const schema = SCHEMAS.get(tool)!.safeParse(args);
      const shown = JSON.stringify(args)?.slice(0, 200);
      if (fast !== undefined) {
        accepted++;
        assert.ok(schema.success, `${tool}: accepted but the schema refuses: ${shown}`);
        assert.deepEqual(fast, schema.data, `${tool}: the schema parses it otherwise: ${shown}`);
      } else if (!schema.success) refused++;
    }
  }
  // The corpus exercises both sides (so the check above cannot pass by accepting nothing).
  assert.ok(cases > 5000, `${cases} cases`);
  assert.ok(accepted > 300 && refused > 3000, `${accepted} accepted, ${refused} refused`);
});

Deno.test("arguments the fast check cannot vouch for are refused with the schema's words", async () => {
  const loaded: string[] = [];
  const server = new ToolChildServer({
    name: "test",
    entries: () => {
      loaded.push("entries");
      return Promise.resolve(FILE_TOOLS);
    },
    fast: FILE_ARGS_CHECKS,
    load: (entry) => Promise.resolve((args: unknown) => `${entry.name} ${JSON.stringify(args)}`),
  });
  const call = (id: number, args: unknown) =>
    JSON.stringify({ type: "call", id, tool: "read_file", args, workspace: "/w" });
  const ok = await server.answer(call(1, { path: "a" }));
  assert.deepEqual(ok, {
    type: "result",
    id: 1,
    ok: true,
    output: 'read_file {"path":"a","offset":1,"limit":500}',
  });
  assert.deepEqual(loaded, [], "a call the fast check accepts needs no schema");
  const refused = await server.answer(call(2, { path: "a", limit: 5000 }));
  assert.ok(refused?.type === "result" && !refused.ok, JSON.stringify(refused));
  assert.equal(refused.error.kind, "invalid_arguments");
  assert.match(refused.error.message, /limit/);
  assert.deepEqual(loaded, ["entries"]);
});
