// The compute tools of tools/ run in-process: results, refusals and limits.
// compute_child_test.ts runs them in their real child with no permissions.
import assert from "node:assert/strict";
import { base64 as base64Handler } from "../../tools/_base64.ts";
import { checksum as checksumHandler } from "../../tools/_checksum.ts";
import { diffTexts as diffTextsHandler } from "../../tools/_diff_texts.ts";
import { jsonQuery as jsonQueryHandler } from "../../tools/_json_query.ts";
import { mathEval as mathEvalHandler } from "../../tools/_math_eval.ts";
import { computeToolServer } from "../../tools/compute.ts";
import { failsWith, viaCatalogue, viaCatalogueSync } from "./_workspace.ts";

const base64 = viaCatalogueSync("base64", base64Handler);
const checksum = viaCatalogueSync("checksum", checksumHandler);
const diffTexts = viaCatalogueSync("diff", diffTextsHandler);
const jsonQuery = viaCatalogueSync("json_query", jsonQueryHandler);
const mathEval = viaCatalogue("math_eval", mathEvalHandler);

const MIB = 1024 * 1024;

Deno.test("mathEval() evaluates arithmetic, functions, units and statements", async (t) => {
  const rows: [string, string][] = [
    ["1 + 2 * 3", "7"],
    ["(1 + 2) * 3 % 4", "1"],
    ["0.1 + 0.2", "0.3"],
    ["sqrt(2)^2", "2"],
    ["5 km to mile", "3.1068559611867 mile"],
    ["a = 4; b = a * 2; b + 1", "9"],
    ["[1, 2] * 3", "[3, 6]"],
    ["1 / 0", "Infinity"],
  ];
  for (const [expression, expected] of rows) {
    await t.step(expression, async () => {
      assert.equal(await mathEval("/", { expression }), expected);
    });
  }
  assert.equal(await mathEval("/", { expression: "pi", precision: 5 }), "3.1416");
  await assert.rejects(
    mathEval("/", { expression: "a" }),
    failsWith("invalid_arguments", /Undefined symbol a/),
  );
});

Deno.test("mathEval() refuses the functions that parse or define code, and never reaches JavaScript", async (t) => {
  for (
    const name of ["import", "createUnit", "evaluate", "parse", "compile", "simplify", "derivative"]
  ) {
    await t.step(name, async () => {
      await assert.rejects(
        mathEval("/", { expression: `${name}("1")` }),
        failsWith("invalid_arguments", new RegExp(`the function ${name} is disabled`)),
      );
    });
  }
  for (
    const expression of ["constructor", 'cos.constructor("return 1")()', "f = sin; f.constructor"]
  ) {
    await t.step(expression, async () => {
      await assert.rejects(mathEval("/", { expression }), failsWith("invalid_arguments", /./));
    });
  }
  await assert.rejects(mathEval("/", { expression: "1".repeat(10_001) }), /expression/);
});

Deno.test("diffTexts() returns a unified diff of two texts", () => {
  assert.equal(
    diffTexts("/", { old: "a\nb\nc\n", new: "a\nB\nc\n", old_name: "x", new_name: "y" }),
    "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c",
  );
  assert.equal(diffTexts("/", { old: "same", new: "same" }), "(the texts are equal)");
  assert.equal(
    diffTexts("/", { old: "1\n2\n3\n4\n5\n", new: "1\n2\n3\n4\nfive\n", context: 0 }),
    "--- old\n+++ new\n@@ -5,1 +5,1 @@\n-5\n+five",
  );
  assert.throws(() => diffTexts("/", { old: "x".repeat(MIB + 1), new: "" }), /larger than 1 MiB/);
});

Deno.test("jsonQuery() applies a JMESPath expression and refuses bad JSON or queries", () => {
  const json = JSON.stringify({ items: [{ name: "a", price: 5 }, { name: "b", price: 15 }] });
  assert.equal(jsonQuery("/", { json, query: "items[?price > `10`].name" }), '[\n  "b"\n]');
  assert.equal(jsonQuery("/", { json, query: "length(items)" }), "2");
  assert.equal(jsonQuery("/", { json, query: "missing" }), "null");
  assert.throws(
    () => jsonQuery("/", { json: "{oops", query: "a" }),
    failsWith("invalid_arguments", /not valid JSON/),
  );
  assert.throws(
    () => jsonQuery("/", { json, query: "items[?" }),
    failsWith("invalid_arguments", /not a valid JMESPath expression/),
  );
});

Deno.test("checksum() hashes UTF-8 text with each algorithm (FIPS 180 and RFC 1321 vectors)", () => {
  assert.equal(
    checksum("/", { text: "abc" }),
    "sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    checksum("/", { text: "abc", algorithm: "sha1" }),
    "sha1: a9993e364706816aba3e25717850c26c9cd0d89d",
  );
  assert.match(
    checksum("/", { text: "abc", algorithm: "sha512" }),
    /^sha512: ddaf35a193617aba.*a54ca49f$/,
  );
  assert.equal(
    checksum("/", { text: "abc", algorithm: "md5" }),
    "md5: 900150983cd24fb0d6963f7d28e17f72",
  );
  assert.equal(
    checksum("/", { text: "", encoding: "base64" }),
    "sha256: 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
  );
  assert.throws(() => checksum("/", { text: "x", algorithm: "crc32" }), /algorithm/);
});

Deno.test("base64() encodes and decodes text in both alphabets and refuses what is not base64 text", () => {
  assert.equal(base64("/", { text: "héllo?>", action: "encode" }), "aMOpbGxvPz4=");
  assert.equal(
    base64("/", { text: "héllo?>", action: "encode", url_safe: true }),
    "aMOpbGxvPz4",
  );
  assert.equal(base64("/", { text: "aMOp bGxv\nPz4=", action: "decode" }), "héllo?>");
  assert.equal(
    base64("/", { text: "aMOpbGxvPz4", action: "decode", url_safe: true }),
    "héllo?>",
  );
  assert.throws(
    () => base64("/", { text: "a-b_", action: "decode" }),
    failsWith("invalid_arguments", /not base64 \(for the URL-safe alphabet/),
  );
  assert.throws(
    () => base64("/", { text: "/w==", action: "decode" }),
    failsWith("invalid_arguments", /not UTF-8 text/),
  );
  assert.throws(() => base64("/", { text: "x", action: "rot13" }), /action/);
});

Deno.test("the compute child's server serves only the compute tools and answers bad input as data", async () => {
  const server = computeToolServer();
  const call = (id: number, tool: string, args: Record<string, unknown>) =>
    server.answer(JSON.stringify({ type: "call", id, tool, args, workspace: "/" }));
  const ok = await call(1, "math_eval", { expression: "6*7" });
  assert.deepEqual(ok, { type: "result", id: 1, ok: true, output: "42" });
  const fileTool = await call(2, "write_file", { path: "/tmp/x", content: "" });
  assert.ok(fileTool?.type === "result" && !fileTool.ok, JSON.stringify(fileTool));
  assert.equal(fileTool.error.kind, "unknown_tool");
  assert.match(
    fileTool.error.message,
    /serves math_eval, diff, json_query, checksum, base64/,
  );
  const badArgs = await call(3, "checksum", { text: 1 });
  assert.ok(badArgs?.type === "result" && !badArgs.ok, JSON.stringify(badArgs));
  assert.equal(badArgs.error.kind, "invalid_arguments");
});
