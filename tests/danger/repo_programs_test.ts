/**
 * The one table of repository-configured programs (`REPO_PROGRAM_KEYS`): for each key, a
 * repository whose `.git/config` sets it makes every git command a `code_execution` call, denied
 * at `untrusted` and contained at `standard`. The configuration is read from disk by the core's
 * reader (`WorkspaceGuard`), includes followed, exactly as a session host does before each call.
 * The values are canary strings: nothing here runs them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { WorkspaceGuard } from "../../src/broker/workspace_guard.ts";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { parseGitConfig } from "../../src/danger/parse_git_config.ts";
import { REPO_PROGRAM_KEYS, repoProgramKey } from "../../src/danger/repo_programs.ts";

const classifier = await createClassifier();

/** A concrete key (and the config section that sets it) for each table entry. */
function exampleOf(name: string): { section: string; key: string; value: string } {
  const value = name.startsWith("core.fsmonitor") ? "echo canary" : "!echo canary";
  const fill: Record<string, string> = {
    "<command>": "log",
    "<driver>": "canary",
    "<url>": "https://e.example",
    "<name>": "origin",
    "<token>": "sign",
    "<tool>": "canary",
  };
  // The template's first spelling (`a.b/c` is `a.b`), split on its own dots.
  const segments = name.replace(/ .*$/, "").replace(/\/.*$/, "").split(".")
    .map((segment) => fill[segment] ?? segment);
  const key = segments.pop()!;
  const section = segments.length === 1
    ? `[${segments[0]}]`
    : `[${segments[0]} "${segments.slice(1).join(".")}"]`;
  return { section, key, value };
}

async function repository(config: string): Promise<{ ws: string; context: ClassifyContext }> {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-repo-programs-" }));
  await Deno.mkdir(join(ws, ".git", "hooks"), { recursive: true });
  await Deno.writeTextFile(join(ws, ".git", "config"), config);
  const facts = new WorkspaceGuard({ home: "/nonexistent" }).facts(ws);
  const context: ClassifyContext = {
    workspace: ws,
    home: "/home/ada",
    protectedRoots: ["/home/ada/.odek"],
    trustLevel: "standard",
    repository: {
      protectedExtra: facts.protectedExtra,
      programs: facts.repoPrograms,
      repositories: facts.repositories,
    },
  };
  return { ws, context };
}

Deno.test("every key of the table makes git commands code_execution: denied at untrusted, contained at standard", async (t) => {
  for (const entry of REPO_PROGRAM_KEYS) {
    await t.step(entry.name, async () => {
      const { section, key, value } = exampleOf(entry.name);
      const { ws, context } = await repository(`${section}\n\t${key} = ${value}\n`);
      try {
        // A key that runs only for commands that change the repository (hooks) is seen by
        // `git commit`; the rest by every command, `git status` included.
        const command = entry.when === "write" ? "git commit -m x" : "git status";
        assert.ok(
          context.repository!.programs.some((p) =>
            repoProgramKey(p.key, "!x")?.name === entry.name
          ),
          `the reader did not find ${section} ${key}: ${JSON.stringify(context.repository)}`,
        );
        const untrusted = classifier.classifyToolCall(
          { name: "shell", args: { command } },
          { ...context, trustLevel: "untrusted" },
        );
        assert.equal(untrusted.decision, "deny", untrusted.reason);
        assert.ok(untrusted.parts.some((p) => p.riskClass === "code_execution"), untrusted.reason);
        const standard = classifier.classifyToolCall({ name: "shell", args: { command } }, context);
        assert.equal(standard.decision, "allow", standard.reason);
        const part = standard.parts.find((p) => p.riskClass === "code_execution");
        assert.ok(part?.detail?.includes("the repository configures"), JSON.stringify(standard));
      } finally {
        await Deno.remove(ws, { recursive: true });
      }
    });
  }
});

Deno.test("a repository's programs are found through includes, and a plain config runs nothing", async () => {
  const included = await repository("[include]\n\tpath = ../extra.inc\n[alias]\n\tst = status\n");
  try {
    await Deno.writeTextFile(join(included.ws, "extra.inc"), '[diff "x"]\n\ttextconv = cat\n');
    const facts = new WorkspaceGuard({ home: "/nonexistent" }).facts(included.ws);
    assert.deepEqual(facts.repoPrograms.map((p) => p.key), ["diff.x.textconv"]);
    assert.ok(facts.protectedExtra.includes("extra.inc"), "the included file is protected");
  } finally {
    await Deno.remove(included.ws, { recursive: true });
  }
  const plain = await repository("[core]\n\tbare = false\n[alias]\n\tst = status\n");
  try {
    const verdict = classifier.classifyToolCall(
      { name: "shell", args: { command: "git status" } },
      { ...plain.context, trustLevel: "untrusted" },
    );
    assert.equal(verdict.decision, "allow", verdict.reason);
  } finally {
    await Deno.remove(plain.ws, { recursive: true });
  }
});

Deno.test("executable hooks count for commands that change the repository, not for reads", async () => {
  const { ws } = await repository("[core]\n\tbare = false\n");
  try {
    await Deno.writeTextFile(join(ws, ".git/hooks/pre-commit"), "#!/bin/sh\n", { mode: 0o755 });
    await Deno.writeTextFile(join(ws, ".git/hooks/pre-push.sample"), "#!/bin/sh\n", {
      mode: 0o755,
    });
    const facts = new WorkspaceGuard({ home: "/nonexistent" }).facts(ws);
    assert.deepEqual(facts.repoPrograms.map((p) => p.key), ["hook pre-commit"]);
    const context: ClassifyContext = {
      workspace: ws,
      home: "/home/ada",
      protectedRoots: [],
      trustLevel: "untrusted",
      repository: {
        protectedExtra: facts.protectedExtra,
        programs: facts.repoPrograms,
        repositories: facts.repositories,
      },
    };
    const status = classifier.classifyToolCall(
      { name: "shell", args: { command: "git status" } },
      context,
    );
    assert.equal(status.decision, "allow", status.reason);
    const commit = classifier.classifyToolCall(
      { name: "shell", args: { command: "git commit -m x" } },
      { ...context, trustLevel: "standard" },
    );
    assert.ok(commit.parts.some((p) => p.riskClass === "code_execution"), commit.reason);
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});

Deno.test("parseGitConfig() reads keys as git does: case, subsections, quotes, continuations, comments", () => {
  const { entries, error } = parseGitConfig(
    [
      "; a comment",
      "[Core]",
      '\tPager = "less -R" # trailing comment',
      '[diff "Lfs"] textconv = git-lfs \\',
      "  cat",
      "[alias.X]",
      "\tst",
      '[filter "q"]\n\tclean = a\\"b',
    ].join("\n"),
  );
  assert.equal(error, undefined);
  assert.deepEqual(entries.map((e) => [e.key, e.value]), [
    ["core.pager", "less -R"],
    ["diff.Lfs.textconv", "git-lfs   cat"],
    ["alias.x.st", "true"],
    ["filter.q.clean", 'a"b'],
  ]);
  assert.match(parseGitConfig("[core\n").error ?? "", /line 1/);
  assert.match(parseGitConfig('[core]\n\tpager = "x\n').error ?? "", /quote/);
});
