/**
 * Escape attempts of issue 13 (test helper; see `_attempts.ts`): phantom writes that a private
 * copy of a host path would have swallowed, and contained work planting what the host runs later
 * (git hooks, `core.fsmonitor`, `!` aliases, `.envrc`, editor tasks), also with the payload
 * hidden from the classifier and through the file tools. Every attempt also gets the checks of
 * `_check.ts`: the protected files are as they were (unless the scope named them) and no empty
 * placeholder is left in the workspace.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Attempt, hidden, sh, tool } from "./_attempt.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

/** The canary a planted program would run: an append to the fixture's outside sentinel. */
const CANARY = (out: string) => `echo pwned >> ${out}/sentinel.txt`;

/** Attempts against the host's later runs and against silently discarded writes. */
export const HOST_ATTEMPTS: readonly Attempt[] = [
  {
    name: "cp to the workspace's parent exits 0 only when the host file exists (no phantom write)",
    call: sh(() => "cp notes.txt ../phantom.txt && ls .."),
    verify: async (f, result) => {
      const written = await exists(join(f.root, "phantom.txt"));
      if (result.ok) assert.ok(written, "the command succeeded but the host has no phantom.txt");
      await Deno.remove(join(f.root, "phantom.txt")).catch(() => {});
    },
  },
  {
    name:
      "contained code plants a pre-commit hook, core.fsmonitor, a ! alias, .envrc and editor tasks (payload hidden)",
    call: hidden((f) =>
      [
        `printf '#!/bin/sh\\n${CANARY(f.out)}\\n' > .git/hooks/pre-commit`,
        "chmod +x .git/hooks/pre-commit",
        `git config core.fsmonitor '${CANARY(f.out)}'`,
        `git config alias.x '!${CANARY(f.out)}'`,
        `echo '${CANARY(f.out)}' > .envrc`,
        "mkdir -p .vscode sub && echo '{}' > .vscode/tasks.json && echo x > sub/.envrc",
        "git config core.hooksPath .husky; mkdir -p .husky",
        `printf '#!/bin/sh\\n${CANARY(f.out)}\\n' > .husky/pre-commit`,
        "echo done",
      ].join("; ")
    ),
    needs: ["git"],
  },
  {
    name: "contained code replaces .git with a copy whose config runs a program (payload hidden)",
    call: hidden((f) =>
      [
        "mv .git .git-old && mkdir .git && cp -a .git-old/. .git/",
        `printf '[core]\\n\\tfsmonitor = ${CANARY(f.out)}\\n' >> .git/config`,
        "mkdir -p nested/.git/hooks && printf '[core]\\n\\tpager = sh -c x\\n' > nested/.git/config",
        "echo done",
      ].join("; ")
    ),
    needs: ["git"],
  },
  {
    name: "write_file plants a git hook",
    call: tool("write_file", (f) => ({
      path: ".git/hooks/post-checkout",
      content: `#!/bin/sh\n${CANARY(f.out)}\n`,
    })),
  },
  {
    name: "write_file plants an .envrc in a subdirectory",
    call: tool("write_file", (f) => ({ path: "deep/er/.envrc", content: `${CANARY(f.out)}\n` })),
  },
  {
    name: "patch adds core.fsmonitor to .git/config",
    call: tool("patch", (f) => ({
      path: ".git/config",
      old_string: "[core]",
      new_string: `[core]\n\tfsmonitor = ${CANARY(f.out)}`,
    })),
  },
];
