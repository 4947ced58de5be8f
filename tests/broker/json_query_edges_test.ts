// Found by the adversarial review: json_query crashed with a bare TypeError on `constructor`
// (an inherited function, which JSON.stringify turns into undefined) and with a bare RangeError
// printing a result nested 100,000 levels deep. Both are now tool failures or data.
import assert from "node:assert/strict";
import { jsonQuery as jsonQueryHandler } from "../../tools/_json_query.ts";
import { failsWith, viaCatalogueSync } from "./_workspace.ts";

const jsonQuery = viaCatalogueSync("json_query", jsonQueryHandler);

Deno.test("jsonQuery() prints a query that reaches an inherited function as null", () => {
  assert.equal(jsonQuery("/", { json: "{}", query: "constructor" }), "null");
});

Deno.test("jsonQuery() refuses to print a result nested 100,000 levels deep, as a tool failure", () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.throws(
    () => jsonQuery("/", { json: deep, query: "@" }),
    failsWith("failed", /cannot be printed as JSON[^]*nests too deeply/),
  );
});
