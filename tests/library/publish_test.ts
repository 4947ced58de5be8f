import assert from "node:assert/strict";
import { ROOT } from "../arch/_source_files.ts";

/**
 * The warnings `deno publish` may print, on purpose: dynamic imports it cannot rewrite, each
 * resolvable without an import map at run time (a relative path, or an absolute file URL).
 */
const KNOWN_WARNINGS = [
  // The one computed import of the modules only some runs need (src/_util/lazy_module.ts; each
  // command, the CLI itself, the MCP provider, the classifier, the checkpoint store, continue
  // from run), by a URL relative to the registry: Deno pre-loads the graph of a literal import()
  // (docs/performance.md).
  "unanalyzable-dynamic-import src/_util/lazy_module.ts",
  // The installed command's bundle entry: the lazy modules' outputs beside it, and the checkout's
  // own entry when the bundle is stale (an absolute file URL).
  "unanalyzable-dynamic-import src/bundle_main.ts",
  "unanalyzable-dynamic-import src/bundle_main.ts",
  // A library tool's handler module: an absolute path given at run time (defineTool).
  "unanalyzable-dynamic-import tools/module_tool.ts",
];

async function run(
  program: string,
  args: string[],
): Promise<{ code: number; text: string }> {
  const output = await new Deno.Command(program, {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  return { code: output.code, text };
}

/** Whether this process may make a network namespace (`unshare -n`, as root). */
async function canUnshareNetwork(): Promise<boolean> {
  try {
    return (await new Deno.Command("unshare", { args: ["-n", "true"], stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

Deno.test("the library's package checks pass: deno publish --dry-run and deno doc --lint", async (t) => {
  await t.step(
    "deno publish --dry-run has no problem, only the known warnings, and needs no network",
    async () => {
      const args = ["publish", "--dry-run", "--allow-dirty"];
      // JSR is not reachable here: the dry run only analyses. Without a network namespace at all
      // it shows that nothing is fetched (the npm packages come from the cache `deno task setup` filled).
      const offline = await canUnshareNetwork();
      if (!offline) {
        console.error(
          "publish dry run: cannot make a network namespace here (not root); running it with the network as it is",
        );
      }
      const { code, text } = offline
        ? await run("unshare", ["-n", Deno.execPath(), ...args])
        : await run(Deno.execPath(), args);
      assert.equal(code, 0, text);
      assert.match(text, /Success Dry run complete/, text);
      assert.doesNotMatch(text, /^error/m, text);
      const warnings = [...text.matchAll(/^warning\[([a-z-]+)\][^\n]*\n\s*--> ([^:\n]+)/gm)]
        .map(([, kind, file]) => `${kind} ${file.replace(ROOT, "")}`);
      assert.deepEqual(warnings.sort(), [...KNOWN_WARNINGS].sort(), text);
    },
  );
  await t.step("deno doc --lint src/mod.ts src/testing/mod.ts finds nothing", async () => {
    const { code, text } = await run(Deno.execPath(), [
      "doc",
      "--lint",
      "src/mod.ts",
      "src/testing/mod.ts",
    ]);
    assert.equal(code, 0, text);
    assert.doesNotMatch(text, /error/, text);
  });
});
