/**
 * Attacker review of queued runs on a git repository (issue 22): hostile repository trees, hostile
 * configuration of a local remote, hostile request values and a hostile scratch folder. Each test
 * pins the safe behaviour seen. Every payload is a canary: a hook or filter that appends a line to
 * a marker file in the test's own temp folder; repositories are local bare repositories there,
 * made with the test's git through argument arrays.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { RunWorkspace } from "../../src/durable/run_workspace.ts";
import { materializeTree } from "../../src/durable/_materialize_tree.ts";
import { QueuedRunGitSchema } from "../../src/durable/queued_run.ts";
import { bareRepository, git, gitMissing } from "./_git_repository.ts";

const missing = gitMissing();
if (missing) console.log(`git workspace attack tests skipped: ${missing}`);

/** A program that appends its name to the marker (the canary's only effect). */
function canary(marker: string): string {
  return `#!/bin/sh\necho "$0 ran" >> '${marker}'\ncat\nexit 0\n`;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function tempRoot(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-attack22-" }));
}

async function scratchRootIn(root: string): Promise<string> {
  const scratchRoot = join(root, "scratch");
  await Deno.mkdir(scratchRoot, { mode: 0o700 });
  return scratchRoot;
}

/** Plant every receive hook, a filter, an fsmonitor and a pack-objects hook in `bare`. */
async function armRemote(bare: string, root: string, marker: string): Promise<void> {
  const program = join(root, "canary.sh");
  await Deno.writeTextFile(program, canary(marker), { mode: 0o755 });
  for (
    const hook of [
      "pre-receive",
      "update",
      "post-receive",
      "post-update",
      "reference-transaction",
      "push-to-checkout",
      "pre-auto-gc",
    ]
  ) {
    await Deno.writeTextFile(join(bare, "hooks", hook), canary(marker), { mode: 0o755 });
  }
  for (
    const [key, value] of [
      ["uploadpack.packObjectsHook", program],
      ["core.fsmonitor", program],
      ["filter.canary.smudge", program],
      ["filter.canary.clean", program],
      ["filter.canary.process", program],
      ["diff.canary.textconv", program],
      ["diff.canary.command", program],
      ["core.pager", program],
      ["gc.auto", "1"],
    ]
  ) {
    await git(["--git-dir", bare, "config", key, value], root);
  }
}

Deno.test({
  name:
    "git attack: a local remote's hooks, filters, fsmonitor and pack-objects hook never run on the worker (absolute path and file:// alike)",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const marker = join(root, "canary.marker");
      const bare = await bareRepository(root, "app", {
        "README.md": "base\n",
        ".gitattributes": "* filter=canary diff=canary\n",
        "notes.txt": "one\n",
      });
      await armRemote(bare, root, marker);
      const scratchRoot = await scratchRootIn(root);
      for (const repository of [bare, `file://${bare}`]) {
        const runId = `r-${repository.length}`;
        const spec = { repository, ref: "main", branch: `odek/run/${runId}` };
        assert.ok(QueuedRunGitSchema.safeParse(spec).success);
        await using ws = await RunWorkspace.create({
          git: spec,
          sessionId: runId,
          runId,
          scratchRoot,
        });
        await ws.checkout(await ws.resolveBase());
        // The blob as it is: no smudge filter ran on it.
        assert.equal(await Deno.readTextFile(join(ws.workspace, "notes.txt")), "one\n");
        await Deno.writeTextFile(join(ws.workspace, "notes.txt"), "two\n");
        await ws.checkpoint("after write (c1)", ["c1"]);
        const result = await ws.result();
        assert.deepEqual(result.files, [{ path: "notes.txt", change: "modified" }]);
        assert.match(result.diff, /\+two/);
      }
      assert.equal(
        await exists(marker),
        false,
        `a canary ran: ${await Deno.readTextFile(marker).catch(() => "")}`,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** Make a commit on `refs/heads/main` of `bare` whose root tree is `entries` (mktree -z lines). */
async function craftCommit(bare: string, root: string, entries: string[]): Promise<string> {
  const tree =
    (await git(["--git-dir", bare, "mktree", "-z", "--missing"], root, entries.join("\0") + "\0"))
      .trim();
  const commit = (await git(["--git-dir", bare, "commit-tree", tree, "-m", "hostile"], root))
    .trim();
  await git(["--git-dir", bare, "update-ref", "refs/heads/main", commit], root);
  return commit;
}

async function blob(bare: string, root: string, text: string): Promise<string> {
  return (await git(["--git-dir", bare, "hash-object", "-w", "--stdin"], root, text)).trim();
}

async function subtree(bare: string, root: string, entries: string[]): Promise<string> {
  return (await git(
    ["--git-dir", bare, "mktree", "-z", "--missing"],
    root,
    entries.join("\0") + "\0",
  ))
    .trim();
}

Deno.test({
  name:
    "git attack: a hostile tree (absolute and escaping symlinks, a gitlink, .gitmodules, newline and control names) stays inside the workspace, and a checkpoint keeps links as links",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      // What the links point at: a folder with a secret the run must not copy into its branch.
      const outside = join(root, "outside");
      await Deno.mkdir(outside);
      await Deno.writeTextFile(join(outside, "secret.txt"), "canary-secret\n");
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const readme = await blob(bare, root, "base\n");
      const absLink = await blob(bare, root, outside);
      const upLink = await blob(bare, root, "../../../../../../../../..");
      const modules = await blob(
        bare,
        root,
        '[submodule "sub"]\n\tpath = sub\n\turl = ./sub.git\n',
      );
      const seed = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
      const nested = await subtree(bare, root, [`100644 blob ${readme}\tinner.txt`]);
      await craftCommit(bare, root, [
        `100644 blob ${readme}\tREADME.md`,
        `120000 blob ${absLink}\tabs`,
        `120000 blob ${upLink}\tup`,
        `100644 blob ${modules}\t.gitmodules`,
        `160000 commit ${seed}\tsub`,
        `100644 blob ${readme}\tnew\nline.txt`,
        `100644 blob ${readme}\tbell\u0007\u001b[31m.txt`,
        `040000 tree ${nested}\tdir`,
      ]);
      const scratchRoot = await scratchRootIn(root);
      const spec = { repository: bare, ref: "main", branch: "odek/run/h1" };
      const lines: string[] = [];
      await using ws = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "h1",
        scratchRoot,
        log: (line) => lines.push(line),
      });
      await ws.checkout(await ws.resolveBase());
      // Links are links (not followed, not copied), the gitlink is skipped, odd names are files.
      assert.equal(await Deno.readLink(join(ws.workspace, "abs")), outside);
      assert.equal(await Deno.readLink(join(ws.workspace, "up")), "../../../../../../../../..");
      assert.equal(await exists(join(ws.workspace, "sub")), false);
      assert.ok(lines.some((line) => line.includes(`not checked out "sub"`)), lines.join("\n"));
      assert.ok(lines.every((line) => !line.includes("\n")), "one log line per skip");
      assert.equal(await Deno.readTextFile(join(ws.workspace, "new\nline.txt")), "base\n");
      assert.equal(await Deno.readTextFile(join(ws.workspace, "dir", "inner.txt")), "base\n");
      assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret.txt"]);
      // A checkpoint stores the links as links: the secret never reaches the run branch.
      await Deno.writeTextFile(join(ws.workspace, "README.md"), "changed\n");
      await ws.checkpoint("after write (c1)", ["c1"]);
      const pushed = await git(
        ["--git-dir", bare, "ls-tree", "-r", "-z", "refs/heads/odek/run/h1"],
        root,
      );
      assert.ok(pushed.split("\0").some((line) => /^120000 blob [0-9a-f]{40}\tabs$/.test(line)));
      const all = await git(["--git-dir", bare, "log", "-p", "--all", "--format=%H"], root);
      assert.doesNotMatch(all, /canary-secret/);
      assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret.txt"]);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "git attack: trees git's fsck refuses (.git, .GIT, '.git ', '..', a link and a folder of the same name) fail the fetch and write nothing",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const outside = join(root, "outside");
      await Deno.mkdir(outside);
      const scratchRoot = await scratchRootIn(root);
      const cases: [string, (bare: string) => Promise<string[]>][] = [
        [".git", async (bare) => [`040000 tree ${await hooksTree(bare, root)}\t.git`]],
        [".GIT", async (bare) => [`040000 tree ${await hooksTree(bare, root)}\t.GIT`]],
        [".git-space", async (bare) => [`040000 tree ${await hooksTree(bare, root)}\t.git `]],
        ["git~1", async (bare) => [`040000 tree ${await hooksTree(bare, root)}\tgit~1`]],
        ["dotdot", async (bare) => [`100644 blob ${await blob(bare, root, "x\n")}\t..`]],
        ["link-then-dir", async (bare) => [
          `120000 blob ${await blob(bare, root, outside)}\tesc`,
          `040000 tree ${await subtree(bare, root, [
            `100644 blob ${await blob(bare, root, "through the link\n")}\tplanted.txt`,
          ])}\tesc`,
        ]],
      ];
      const skippedByMktree: string[] = [];
      for (const [name, entries] of cases) {
        const bare = await bareRepository(root, name, { "README.md": "base\n" });
        let crafted: string;
        try {
          crafted = await craftCommit(bare, root, await entries(bare));
        } catch {
          skippedByMktree.push(name); // the test's own git would not even write such a tree
          continue;
        }
        const spec = { repository: bare, ref: crafted, branch: `odek/run/${name}` };
        await using ws = await RunWorkspace.create({
          git: spec,
          sessionId: name,
          runId: name,
          scratchRoot,
        });
        await assert.rejects(
          ws.checkout(crafted),
          /could not fetch[^]*(fsck|hasDotgit|badTree|duplicateEntries|dot)/i,
          name,
        );
        assert.deepEqual([...Deno.readDirSync(ws.workspace)], [], name);
        assert.deepEqual([...Deno.readDirSync(outside)], [], name);
      }
      console.log(`trees the test's git would not write: ${skippedByMktree.join(", ") || "none"}`);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "git attack: without git's fsck (objects already in odek's repository), the tree writer skips .git, .GIT, '..' and writes no file through a link of the same name",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const outside = join(root, "outside");
      await Deno.mkdir(outside);
      const bare = await bareRepository(root, "raw", { "README.md": "base\n" });
      const x = await blob(bare, root, "x\n");
      const commit = await craftCommit(bare, root, [
        `040000 tree ${await hooksTree(bare, root)}\t.git`,
        `040000 tree ${await hooksTree(bare, root)}\t.GIT`,
        `040000 tree ${await hooksTree(bare, root)}\t.Git`,
        `100644 blob ${x}\t..`,
        `100644 blob ${x}\t.`,
        `120000 blob ${await blob(bare, root, outside)}\tesc`,
        `040000 tree ${await subtree(bare, root, [`100644 blob ${x}\tplanted.txt`])}\tesc`,
      ]);
      const dir = join(root, "ws");
      await Deno.mkdir(dir);
      // The link and the folder of one name clash: the writer fails, but only inside `dir`.
      const written = await materializeTree(bare, commit, dir).catch((error: Error) => error);
      assert.deepEqual([...Deno.readDirSync(outside)], []);
      const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
      assert.ok(!names.some((n) => n.toLowerCase() === ".git"), names.join(","));
      if (!(written instanceof Error)) {
        assert.deepEqual(
          written.skipped.map((s) => s.path).sort(),
          [
            ".",
            "..",
            ".GIT/config",
            ".GIT/hooks/post-checkout",
            ".Git/config",
            ".Git/hooks/post-checkout",
            ".git/config",
            ".git/hooks/post-checkout",
          ].sort(),
        );
      } else {
        assert.match(written.message, /exists/i);
      }
      assert.equal(await exists(join(outside, "planted.txt")), false);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

/** A tree holding `config` and `hooks/post-checkout` (what a planted .git folder would carry). */
async function hooksTree(bare: string, root: string): Promise<string> {
  const hook = await blob(bare, root, "#!/bin/sh\nexit 0\n");
  const hooks = await subtree(bare, root, [`100755 blob ${hook}\tpost-checkout`]);
  const config = await blob(bare, root, "[core]\n\tfsmonitor = ./hooks/post-checkout\n");
  return await subtree(bare, root, [
    `100644 blob ${config}\tconfig`,
    `040000 tree ${hooks}\thooks`,
  ]);
}

Deno.test({
  name:
    "git attack: request values that are options, ext:: or fd:: commands, relative paths or revision syntax are refused by the schema",
  fn: () => {
    const good = { repository: "/srv/git/app.git", ref: "main" };
    const refused = [
      { ...good, repository: "--upload-pack=touch x" },
      { ...good, repository: "-oProxyCommand=x" },
      { ...good, repository: "ext::sh -c touch% x" },
      { ...good, repository: "EXT::sh" },
      { ...good, repository: "fd::3" },
      { ...good, repository: "relative/app.git" },
      { ...good, repository: "../app.git" },
      { ...good, repository: "/srv/git/app.git\n--upload-pack=x" },
      { ...good, ref: "--upload-pack=x" },
      { ...good, ref: "main:refs/heads/other" },
      { ...good, ref: "main^{tree}" },
      { ...good, ref: "main~1" },
      { ...good, ref: "@{-1}" },
      { ...good, ref: "a..b" },
      { ...good, ref: "main lock" },
      { ...good, ref: "x.lock" },
      { ...good, ref: "main\n" },
      { ...good, branch: "-f" },
      { ...good, branch: "x:refs/heads/main" },
      { ...good, branch: "main" },
      { ...good, branch: "refs/heads/main" },
      { ...good, ref: "refs/heads/main", branch: "main" },
      { ...good, remote: "--receive-pack=touch x" },
      { ...good, remote: "ext::sh" },
      { ...good, extra: "x" },
    ];
    for (const value of refused) {
      assert.equal(QueuedRunGitSchema.safeParse(value).success, false, JSON.stringify(value));
    }
    for (
      const value of [
        good,
        { ...good, repository: "file:///srv/git/app.git" },
        { ...good, repository: "git@example.invalid:team/app.git" },
        { ...good, ref: "HEAD" },
        { ...good, ref: "refs/tags/v1.0" },
        { ...good, branch: "odek/run/r1" },
      ]
    ) {
      assert.ok(QueuedRunGitSchema.safeParse(value).success, JSON.stringify(value));
    }
  },
});

Deno.test({
  name:
    "git attack: a symlink or a foreign folder planted at the run's scratch path is replaced, never followed; a symlinked scratch root is refused",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const victim = join(root, "victim");
      await Deno.mkdir(victim);
      await Deno.writeTextFile(join(victim, "keep.txt"), "keep\n");
      const scratchRoot = await scratchRootIn(root);
      const name = createHash("sha256").update("p1").digest("hex").slice(0, 24);
      const spec = { repository: bare, ref: "main", branch: "odek/run/p1" };
      // A symlink at <root>/<hash> pointing at a folder of the victim's.
      await Deno.symlink(victim, join(scratchRoot, name));
      {
        await using ws = await RunWorkspace.create({
          git: spec,
          sessionId: "p1",
          runId: "p1",
          scratchRoot,
        });
        await ws.checkout(await ws.resolveBase());
        const info = await Deno.lstat(join(scratchRoot, name));
        assert.ok(info.isDirectory && !info.isSymlink);
        assert.equal(info.mode! & 0o777, 0o700);
        assert.equal(ws.workspace, join(scratchRoot, name, "workspace"));
      }
      assert.deepEqual([...Deno.readDirSync(victim)].map((e) => e.name), ["keep.txt"]);
      // A folder open to everyone, with a planted file and a planted link, is emptied and closed.
      await Deno.mkdir(join(scratchRoot, name, "workspace"), { recursive: true });
      await Deno.chmod(join(scratchRoot, name), 0o777);
      await Deno.writeTextFile(join(scratchRoot, name, "workspace", "planted.txt"), "x\n");
      await Deno.symlink(victim, join(scratchRoot, name, "repo.git"));
      {
        await using ws = await RunWorkspace.create({
          git: spec,
          sessionId: "p1",
          runId: "p1",
          scratchRoot,
        });
        await ws.checkout(await ws.resolveBase());
        assert.equal((await Deno.lstat(join(scratchRoot, name))).mode! & 0o777, 0o700);
        assert.equal(await exists(join(ws.workspace, "planted.txt")), false);
        assert.equal((await Deno.lstat(join(scratchRoot, name, "repo.git"))).isSymlink, false);
      }
      assert.deepEqual([...Deno.readDirSync(victim)].map((e) => e.name), ["keep.txt"]);
      // A scratch root that is itself a symlink (to a 0700 folder of this user) is refused.
      const linkedRoot = join(root, "linked-root");
      await Deno.symlink(scratchRoot, linkedRoot);
      await assert.rejects(
        RunWorkspace.create({ git: spec, sessionId: "p1", runId: "p1", scratchRoot: linkedRoot }),
        /must be a directory of this user with mode 0700 \(it is a symlink/,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "git attack: a tree over the workspace caps is refused before any blob is read, and nothing is written",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "big", {
        "a.txt": "a".repeat(4096),
        "b.txt": "b".repeat(4096),
      });
      const commit = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
      const dir = join(root, "ws");
      await Deno.mkdir(dir);
      for (const limits of [{ maxFiles: 1, maxBytes: 1 << 20 }, { maxFiles: 10, maxBytes: 4096 }]) {
        const refused = await materializeTree(bare, commit, dir, limits).then(
          () => "written",
          (error: Error & { code?: string }) => `${error.code}: ${error.message}`,
        );
        assert.match(
          refused,
          /^GIT_FAILED: .* holds 2 files, 8192 bytes: over a run workspace's caps/,
        );
        assert.deepEqual([...Deno.readDirSync(dir)], []);
      }
      const written = await materializeTree(bare, commit, dir, { maxFiles: 2, maxBytes: 8192 });
      assert.equal(written.files, 2);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
