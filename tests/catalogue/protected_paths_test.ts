/**
 * The one list of files the host runs later (`tools/_catalogue/protected_paths.ts`) covers the
 * hook managers' and mise's configuration, and checkpoint restores use that same list.
 */
import assert from "node:assert/strict";
import { protectedReason } from "../../tools/_catalogue/protected_paths.ts";
import { isProtectedWorkspacePath } from "../../src/checkpoint/protected_workspace_paths.ts";

const PROTECTED = [
  ".git/hooks/pre-commit",
  ".git/config",
  ".envrc",
  "sub/.envrc",
  "mise.toml",
  "tools/.mise.toml",
  "mise.local.toml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
  "lefthook-local.yml",
  ".pre-commit-config.yaml",
  "pkg/.pre-commit-config.yaml",
  ".vscode/tasks.json",
  ".zed/tasks.json",
  ".idea/workspace.xml",
  ".devcontainer/devcontainer.json",
  ".devcontainer.json",
  "odek.jsonc",
  ".odek/config.jsonc",
];

const ORDINARY = [
  "src/app.ts",
  "lefthook.md",
  "docs/mise.toml.md",
  "src/envrc.ts",
  "sub/odek.jsonc",
  ".git/objects/ab/cdef",
];

Deno.test("protectedReason names every file the host runs later, and nothing ordinary", () => {
  assert.deepEqual(PROTECTED.filter((p) => protectedReason(p) === undefined), []);
  assert.deepEqual(ORDINARY.filter((p) => protectedReason(p) !== undefined), []);
});

Deno.test("a checkpoint restore leaves alone exactly what the scan protects, and git's data", () => {
  assert.deepEqual(PROTECTED.filter((p) => !isProtectedWorkspacePath(p)), []);
  assert.ok(isProtectedWorkspacePath(".git/objects/ab/cdef"), "git's own data is never restored");
  assert.ok(isProtectedWorkspacePath(".husky/pre-commit", [".husky"]), "core.hooksPath");
  const ordinary = ORDINARY.filter((p) => !p.startsWith(".git/"));
  assert.deepEqual(ordinary.filter((p) => isProtectedWorkspacePath(p)), []);
});
