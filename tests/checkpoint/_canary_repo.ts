/**
 * Test data: a workspace that is a git repository whose own config, hooks and attributes would
 * run a canary script if any git ran with them — a filter driver (`clean`, `smudge`, `process`)
 * named by `.gitattributes`, a diff textconv, an fsmonitor hook, and hooks. The canary's only
 * effect is appending a line to a marker file in the test's scratch folder.
 *
 * @module
 */
import { join } from "node:path";

/** The canary: appends its name to the marker, then passes its input through. */
function canary(marker: string): string {
  return `#!/bin/sh\necho "$0 ran" >> '${marker}'\ncat\n`;
}

/**
 * Plant the canary in `workspace` (a `.git` directory with config and hooks, `.gitattributes`)
 * and the script itself in `scratch`.
 *
 * @returns the marker's path: it must never exist
 */
export async function plantCanaryRepository(workspace: string, scratch: string): Promise<string> {
  const marker = join(scratch, "canary-ran.marker");
  const script = join(scratch, "canary.sh");
  await Deno.writeTextFile(script, canary(marker), { mode: 0o755 });
  await Deno.mkdir(join(workspace, ".git/hooks"), { recursive: true });
  await Deno.mkdir(join(workspace, ".git/info"), { recursive: true });
  // A repository real git accepts (see canary_repo_test.ts: git itself does run the canary).
  await Deno.mkdir(join(workspace, ".git/objects"), { recursive: true });
  await Deno.mkdir(join(workspace, ".git/refs/heads"), { recursive: true });
  await Deno.writeTextFile(
    join(workspace, ".git/config"),
    [
      "[core]",
      "\trepositoryformatversion = 0",
      `\tfsmonitor = ${script}`,
      `\thooksPath = .git/hooks`,
      '[filter "canary"]',
      `\tclean = ${script} %f`,
      `\tsmudge = ${script} %f`,
      `\tprocess = ${script}`,
      "\trequired = true",
      '[diff "canary"]',
      `\ttextconv = ${script}`,
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(join(workspace, ".git/HEAD"), "ref: refs/heads/main\n");
  for (const hook of ["pre-commit", "post-checkout", "post-commit", "reference-transaction"]) {
    await Deno.writeTextFile(join(workspace, ".git/hooks", hook), canary(marker), { mode: 0o755 });
  }
  await Deno.writeTextFile(join(workspace, ".gitattributes"), "* filter=canary diff=canary\n");
  return marker;
}
