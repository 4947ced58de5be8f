// The file tools that walk the workspace honour their call's abort signal (the child aborts it
// when the core cancels the call): a cancelled walk stops instead of finishing.
import assert from "node:assert/strict";
import { join } from "node:path";
import { glob } from "../../tools/_glob.ts";
import { searchFiles } from "../../tools/_search_files.ts";
import { tree } from "../../tools/_tree.ts";
import { withWorkspace } from "./_workspace.ts";

Deno.test("search_files, tree and glob stop when their call is cancelled", async () => {
  await withWorkspace(async (ws) => {
    for (let i = 0; i < 20; i++) {
      await Deno.mkdir(join(ws, `d${i}`));
      await Deno.writeTextFile(join(ws, `d${i}`, "a.txt"), "needle\n");
    }
    const controller = new AbortController();
    controller.abort(new DOMException("The call was cancelled (aborted)", "AbortError"));
    const context = { workspace: ws, roots: [], signal: controller.signal };
    const calls = [
      () =>
        searchFiles(
          { pattern: "needle", path: ".", ignore_case: false, max_results: 100 },
          context,
        ),
      () => tree({ path: ".", depth: 3, max_entries: 500 }, context),
      () => glob({ pattern: "**/*.txt", path: "." }, context),
    ];
    for (const call of calls) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof DOMException && error.name === "AbortError", String(error));
        return true;
      });
    }
    // The same calls, not cancelled, find the files.
    const live = { ...context, signal: new AbortController().signal };
    assert.match(await glob({ pattern: "**/*.txt", path: "." }, live), /d19\/a\.txt/);
  });
});
