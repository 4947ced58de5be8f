// Found by the adversarial review: search_files with a catastrophically backtracking pattern
// ((a+)+$ against a line of 40 "a" and a "!") held the file-tool child until its 120 s call
// timeout killed it. Tool children now run with V8's linear-engine fallback.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolChildPool } from "../../src/broker/tool_child_pool.ts";
import { makeSandboxFixture, type SandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

async function searchesAtOnce(f: SandboxFixture): Promise<void> {
  await Deno.writeTextFile(join(f.workspace, "a.txt"), `${"a".repeat(40)}!\nplain\n`);
  // Far below the 2^40 steps the backtracking engine would need: only the fallback can answer.
  const pool = new ToolChildPool({ context: f.context, callTimeoutMs: 30_000 });
  const options = {
    set: {
      readPaths: [f.workspace],
      writePaths: [],
      network: { type: "none" as const },
      runBinaries: [],
      envNames: [],
    },
    workspace: f.workspace,
  };
  try {
    const result = await pool.call("search_files", { pattern: "(a+)+$" }, options);
    assert.deepEqual(result, {
      ok: true,
      output: "(no line matches (a+)+$ in 1 text file under .)",
    });
    const alternation = await pool.call("search_files", { pattern: "^(a|a)*b" }, options);
    assert.equal(alternation.ok, true, JSON.stringify(alternation));
  } finally {
    await pool.close();
  }
}

sandboxTest("search_files answers a catastrophically backtracking pattern in bwrap", async () => {
  await using f = await makeSandboxFixture();
  await searchesAtOnce(f);
});

Deno.test("search_files answers a catastrophically backtracking pattern with Deno flags alone", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  await searchesAtOnce(f);
});
