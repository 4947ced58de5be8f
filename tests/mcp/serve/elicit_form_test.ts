import assert from "node:assert/strict";
import { elicitForm } from "../../../src/mcp/_serve_elicit_form.ts";
import { parseHttpAddress } from "../../../src/cli/mcp_serve_command.ts";

Deno.test("elicitForm(): odek's fields become the MCP requestedSchema, defaults and choices kept", () => {
  const form = elicitForm("Pick", [
    { name: "name", type: "string", default: "Ada", maxLength: 20, required: true },
    { name: "n", type: "integer", minimum: 1, required: false },
    {
      name: "plain",
      type: "enum",
      options: [{ value: "a", label: "a" }, { value: "b", label: "b" }],
      default: "a",
      required: false,
    },
    {
      name: "titled",
      type: "enum",
      options: [{ value: "r", label: "Red" }],
      required: false,
    },
    {
      name: "many",
      type: "multi_enum",
      options: [{ value: "x", label: "x" }],
      default: ["x"],
      required: false,
    },
  ]);
  assert.deepEqual(form.requestedSchema, {
    type: "object",
    properties: {
      name: { type: "string", default: "Ada", maxLength: 20 },
      n: { type: "integer", minimum: 1 },
      plain: { type: "string", enum: ["a", "b"], default: "a" },
      titled: { type: "string", oneOf: [{ const: "r", title: "Red" }] },
      many: { type: "array", items: { type: "string", enum: ["x"] }, default: ["x"] },
    },
    required: ["name"],
  });
});

Deno.test("parseHttpAddress(): HOST:PORT, [IPv6]:PORT or a port; anything else is a usage error", () => {
  assert.deepEqual(parseHttpAddress("localhost:8080"), { hostname: "localhost", port: 8080 });
  for (const bad of ["", "127.0.0.1", "127.0.0.1:99999", "http://127.0.0.1:1", "a b:1"]) {
    assert.throws(() => parseHttpAddress(bad), /--http needs ADDRESS:PORT/, bad);
  }
});
