import assert from "node:assert/strict";
import { MAX_SCHEMA_CHARS, normalizeToolSchema } from "../../src/mcp/normalize_tool_schema.ts";

function ok(input: unknown): Record<string, unknown> {
  const out = normalizeToolSchema(input);
  assert.ok("schema" in out, "error" in out ? out.error : "");
  return out.schema;
}

Deno.test("normalizeToolSchema() makes chat-completions parameters of MCP schemas", async (t) => {
  await t.step("a missing type and missing properties become an empty object schema", () => {
    assert.deepEqual(ok({}), { type: "object", properties: {} });
  });
  await t.step("local references are inlined; $defs and $schema dropped", () => {
    const schema = ok({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        a: { $ref: "#/$defs/A", description: "the a" },
        b: { $ref: "#/definitions/B" },
      },
      $defs: { A: { type: "string", minLength: 1 } },
      definitions: { B: { type: "integer" } },
    });
    assert.deepEqual(schema, {
      type: "object",
      properties: {
        a: { type: "string", minLength: 1, description: "the a" },
        b: { type: "integer" },
      },
    });
  });
  await t.step("a recursive reference becomes an unconstrained schema with a note", () => {
    const schema = ok({
      type: "object",
      properties: { tree: { $ref: "#/$defs/node" } },
      $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } },
    });
    const tree = (schema.properties as Record<string, Record<string, unknown>>).tree;
    const child = (tree.properties as Record<string, Record<string, unknown>>).child;
    assert.match(String(child.description), /recursive/);
    assert.equal(child.type, undefined);
  });
  await t.step("a remote reference is never fetched", () => {
    const schema = ok({ properties: { x: { $ref: "http://127.0.0.1:9/schema.json" } } });
    const x = (schema.properties as Record<string, Record<string, unknown>>).x;
    assert.match(String(x.description), /not fetched/);
  });
  await t.step("oneOf becomes anyOf, const an enum, prefixItems items; types inferred", () => {
    const schema = ok({
      properties: {
        mode: { oneOf: [{ const: "a" }, { const: "b" }] },
        pair: { prefixItems: [{ type: "string" }, { type: "number" }] },
        flag: { enum: [true, false] },
      },
    });
    assert.deepEqual(schema.properties, {
      mode: { anyOf: [{ enum: ["a"], type: "string" }, { enum: ["b"], type: "string" }] },
      pair: { items: { anyOf: [{ type: "string" }, { type: "number" }] }, type: "array" },
      flag: { enum: [true, false], type: "boolean" },
    });
  });
  await t.step("allOf of objects is merged", () => {
    const schema = ok({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { properties: { b: { type: "number" } }, required: ["b"] },
      ],
    });
    assert.deepEqual(schema.required, ["a", "b"]);
    assert.deepEqual(Object.keys(schema.properties as object), ["a", "b"]);
  });
  await t.step("a top-level anyOf of objects becomes one object, its properties optional", () => {
    const schema = ok({
      anyOf: [
        { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
      ],
    });
    assert.equal(schema.type, "object");
    assert.equal(schema.required, undefined);
    assert.deepEqual(Object.keys(schema.properties as object), ["path", "url"]);
  });
  await t.step(
    "2020-12 keywords and x- extensions providers reject are dropped; descriptions capped",
    () => {
      const schema = ok({
        type: "object",
        properties: {
          a: {
            type: "string",
            "x-mcp-header": "A",
            deprecated: true,
            description: "d".repeat(5000),
          },
        },
        unevaluatedProperties: false,
        dependentRequired: { a: ["b"] },
        if: { properties: { a: { const: "x" } } },
        then: { required: ["b"] },
      });
      const a = (schema.properties as Record<string, Record<string, unknown>>).a;
      assert.deepEqual(Object.keys(a).sort(), ["description", "type"]);
      assert.equal(String(a.description).length, 1024);
      for (const key of ["unevaluatedProperties", "dependentRequired", "if", "then"]) {
        assert.ok(!(key in schema), key);
      }
    },
  );
});

Deno.test("normalizeToolSchema() refuses what cannot be parameters, with the reason", async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ["not an object", "string", /not a JSON object/],
    ["a top level that is not an object", { type: "string" }, /describes "string", not an object/],
    ["an unknown type", { properties: { a: { type: "strin" } } }, /unknown type "strin"/],
    ["a dangling reference", { properties: { a: { $ref: "#/$defs/missing" } } }, /does not define/],
    ["too large", { description: "x".repeat(MAX_SCHEMA_CHARS + 1) }, /more than 262144/],
    [
      "properties that are not an object",
      { properties: [1, 2] },
      /properties that are not an object/,
    ],
  ];
  for (const [name, input, error] of cases) {
    await t.step(name, () => {
      const out = normalizeToolSchema(input);
      assert.ok("error" in out, name);
      assert.match(out.error, error);
    });
  }
  await t.step("nesting deeper than 48 levels", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 60; i++) deep = { type: "object", properties: { n: deep } };
    const out = normalizeToolSchema(deep);
    assert.ok("error" in out && /deeper than 48/.test(out.error));
  });
  await t.step("a reference fan-out that would explode", () => {
    const defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let i = 1; i < 12; i++) {
      const ref = { $ref: `#/$defs/d${i - 1}` };
      defs[`d${i}`] = { type: "object", properties: { a: ref, b: ref, c: ref, d: ref } };
    }
    const out = normalizeToolSchema({ properties: { x: { $ref: "#/$defs/d11" } }, $defs: defs });
    assert.ok("error" in out && /more than 20000/.test(out.error));
  });
});
