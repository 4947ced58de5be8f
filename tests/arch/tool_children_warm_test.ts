/**
 * After `deno task setup`, a tool child's start finds Deno's node_modules setup cache finished:
 * a child cannot write it (the checkout is read-only in its sandbox), so an unfinished cache
 * would be redone at every child start (about 2.5 s per new file-tool scope, found by trying
 * odek from a fresh clone). `scripts/warm_tool_children.ts` finishes it as part of setup.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CHILD_ENTRIES } from "../../scripts/warm_tool_children.ts";
import { ROOT } from "./_source_files.ts";

const CACHE = join(ROOT, "tools/node_modules/.deno/.setup-cache.bin");

async function digest(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("a tool child's first start after setup leaves the node_modules setup cache unchanged", async () => {
  const before = await digest(CACHE);
  for (const entry of CHILD_ENTRIES) {
    await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--no-remote",
        "--cached-only",
        "--config",
        join(ROOT, "tools/deno.json"),
        join(ROOT, "tools", entry),
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  }
  assert.equal(await digest(CACHE), before, "a child had to finish setup: run deno task setup");
});
