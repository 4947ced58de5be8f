import assert from "node:assert/strict";
import { parseYesFlag } from "../../src/approval/parse_yes_flag.ts";
import { OdekError } from "../../src/_util/odek_error.ts";

Deno.test("parseYesFlag() parses the bare flag and class lists", async (t) => {
  const rows: [string | true, "all" | string[]][] = [
    [true, "all"],
    ["network", ["network"]],
    ["network,system_write", ["network", "system_write"]],
    [" network , system_write ", ["network", "system_write"]],
    ["network,network", ["network"]],
    ["destructive,privileged,unknown", ["destructive", "privileged", "unknown"]],
    ["read,local_write,code_execution", ["read", "local_write", "code_execution"]],
  ];
  for (const [value, expected] of rows) {
    await t.step(JSON.stringify(value), () => assert.deepEqual(parseYesFlag(value), expected));
  }
});

Deno.test("parseYesFlag() rejects bad values with a USAGE error naming the fix", async (t) => {
  const rows: [string, RegExp][] = [
    ["", /no class given/],
    ["  ", /no class given/],
    ["network,", /empty class name/],
    [",network", /empty class name/],
    ["network,,system_write", /empty class name/],
    ["netwrok", /"netwrok" is not a risk class/],
    ["NETWORK", /"NETWORK" is not a risk class/],
    ["all", /"all" is not a risk class/],
    ["blocked", /blocked calls can never be approved/],
    ["network,blocked", /blocked/],
  ];
  for (const [value, message] of rows) {
    await t.step(JSON.stringify(value), () => {
      assert.throws(() => parseYesFlag(value), (error: unknown) => {
        assert.ok(error instanceof OdekError);
        assert.equal(error.code, "USAGE");
        assert.match(error.message, message);
        assert.match(error.message, /--yes=<class>/);
        assert.match(error.message, /network, system_write/);
        return true;
      });
    });
  }
});

Deno.test("parseYesFlag() rejects a non-string with a TypeError", () => {
  assert.throws(() => parseYesFlag(false as unknown as true), TypeError);
});
