/**
 * Writes to files the host runs later are `system_write` in every spelling and ask every time
 * (issue 13): no trusted class or `--yes` covers them; everyday git stays quiet; deleting or
 * replacing the repository is `destructive`. The commands are data: they are classified, never
 * run.
 */
import assert from "node:assert/strict";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";

const classifier = await createClassifier();
const WS = "/home/ada/proj";
const CONTEXT: ClassifyContext = {
  workspace: WS,
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek"],
  trustLevel: "standard",
  scratchDir: "/tmp/odek-1000/host-x/tmp",
  repository: {
    protectedExtra: [".husky", ".git/config", "config/shared.gitconfig"],
    programs: [],
    repositories: [`${WS}/.git`],
  },
};

const shell = (command: string) => ({ name: "shell", args: { command } });
const CALLS = [
  shell("git config core.fsmonitor 'echo x'"),
  shell("git config --local alias.x '!echo x'"),
  shell("git config user.email ada@e.example"),
  shell("git -C . config core.pager less"),
  shell("git config --worktree core.editor vi"),
  shell("git remote add origin https://e.example/r.git"),
  shell("git remote set-url origin https://e.example/r.git"),
  shell("git push -u origin main"),
  shell("git branch --set-upstream-to=origin/main"),
  shell("git branch -m old new"),
  shell("git checkout -t origin/feature"),
  shell("git submodule add https://e.example/s.git s"),
  shell("git init --template=tpl sub"),
  shell("git clone -c core.hooksPath=x https://e.example/r.git r"),
  shell("echo 'echo x' > .git/hooks/pre-commit"),
  shell("cp evil .git/config"),
  shell("sed -i s/a/b/ .git/config"),
  shell("tee .envrc < x"),
  shell("printf x >> sub/dir/.envrc"),
  shell("mv x .vscode/tasks.json"),
  shell("echo x > .husky/pre-commit"),
  shell("echo x >> config/shared.gitconfig"),
  shell("echo '{}' > odek.jsonc"),
  shell("mkdir -p .odek"),
  shell("echo x > vendor/lib/.git"),
  { name: "write_file", args: { path: ".git/hooks/pre-commit", content: "x" } },
  { name: "write_file", args: { path: ".envrc", content: "x" } },
  { name: "write_file", args: { path: ".husky/pre-commit", content: "x" } },
  { name: "write_file", args: { path: ".devcontainer/devcontainer.json", content: "{}" } },
  { name: "patch", args: { path: ".git/config", old_string: "a", new_string: "b" } },
];

Deno.test("a write to a file the host runs later asks every time, in every spelling and at every trust level", async (t) => {
  for (const call of CALLS) {
    await t.step(JSON.stringify(call.args).slice(0, 100), () => {
      const standard = classifier.classifyToolCall(call, CONTEXT);
      assert.equal(standard.decision, "ask", standard.reason);
      assert.ok(standard.askEveryTime, `no askEveryTime: ${standard.reason}`);
      assert.ok(
        standard.parts.some((p) =>
          p.riskClass === "system_write" && p.detail?.includes("the host runs later")
        ),
        JSON.stringify(standard.parts),
      );
      const trusted = classifier.classifyToolCall(call, {
        ...CONTEXT,
        trustLevel: "trusted",
        trustedClasses: ["system_write", "network", "code_execution", "local_write", "unknown"],
      });
      assert.equal(trusted.decision, "ask", `pre-approved classes skipped it: ${trusted.reason}`);
      assert.ok(trusted.askEveryTime);
      const untrusted = classifier.classifyToolCall(call, { ...CONTEXT, trustLevel: "untrusted" });
      assert.equal(untrusted.decision, "deny", untrusted.reason);
    });
  }
});

Deno.test("everyday git keeps running without a prompt", async (t) => {
  for (
    const command of [
      "git status",
      "git diff",
      "git log --oneline",
      "git add -A",
      "git commit -am 'fix the test'",
      "git checkout main",
      "git checkout -b fix/pagination",
      "git switch -c topic",
      "git stash && git stash pop",
      "git merge topic",
      "git rebase main",
      "git reset --hard HEAD~1",
      "git tag v1.0",
      "git branch -d old",
      "git init",
      "git ls-remote ../other",
      "git fetch ../other",
      "curl --version",
      "curl -s http://127.0.0.1:3000/health",
    ]
  ) {
    await t.step(command, () => {
      // A workspace that is not a repository yet: `git init` creates one (git's own templates).
      const context = command === "git init"
        ? { ...CONTEXT, repository: { ...CONTEXT.repository!, repositories: [] } }
        : CONTEXT;
      const verdict = classifier.classifyToolCall(shell(command), context);
      assert.equal(verdict.decision, "allow", verdict.reason);
    });
  }
});

Deno.test("deleting or replacing the repository is destructive", async (t) => {
  for (
    const command of [
      "rm -rf .git",
      "rm -rf ./.git/",
      "find . -type f -delete",
      "find . -delete",
      "find . -exec rm -rf {} +",
      "rm -rf ./*",
      "rm -rf .[!.]*",
      "mv .git /var/tmp/old-git",
      "git init",
      "rm -rf vendor/lib/.git",
    ]
  ) {
    await t.step(command, () => {
      const context = command.includes("vendor")
        ? {
          ...CONTEXT,
          repository: {
            ...CONTEXT.repository!,
            repositories: [`${WS}/.git`, `${WS}/vendor/lib/.git`],
          },
        }
        : CONTEXT;
      const verdict = classifier.classifyToolCall(shell(command), context);
      assert.ok(verdict.parts.some((p) => p.riskClass === "destructive"), JSON.stringify(verdict));
      assert.equal(verdict.decision, "ask");
    });
  }
  // A filtered find spares the repository's files: contained.
  const filtered = classifier.classifyToolCall(shell("find . -name '*.orig' -delete"), CONTEXT);
  assert.equal(filtered.decision, "allow", filtered.reason);
});

Deno.test("a granted host port is named in the verdict; other loopback ports are the session's own", () => {
  const context = { ...CONTEXT, hostPorts: [5432] };
  for (
    const command of [
      "psql -h 127.0.0.1 -p 5432 -c 'select 1'",
      "curl -s http://127.0.0.1:5432/",
      "echo x > /dev/tcp/127.0.0.1/5432",
    ]
  ) {
    const verdict = classifier.classifyToolCall(shell(command), context);
    assert.equal(verdict.decision, "allow", `${command}: ${verdict.reason}`);
    assert.ok(
      verdict.parts.some((p) => p.detail === "host port 5432 (granted)"),
      `${command}: ${JSON.stringify(verdict.parts)}`,
    );
  }
  const other = classifier.classifyToolCall(shell("curl -s http://localhost:8080/"), context);
  assert.equal(other.decision, "allow");
  assert.ok(other.parts.some((p) => p.detail === "reaches only the session's own loopback"));
});
