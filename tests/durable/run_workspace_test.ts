/**
 * A queued run's git workspace without the queue: clone a local bare repository, checkpoint
 * commits pushed to the run branch, a second worker restoring from it, the diff against the base,
 * and none of the repository's hooks or attributes applied by odek's git.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { RunWorkspace } from "../../src/durable/run_workspace.ts";
import { QueuedRunSchema } from "../../src/durable/queued_run.ts";
import { bareRepository, branchLog, fileAt, git, gitMissing } from "./_git_repository.ts";

const missing = gitMissing();
if (missing) console.log(`run workspace tests skipped: ${missing}`);

/** A hook that appends its name to the marker (the canary's only effect). */
function canaryHook(marker: string): string {
  return `#!/bin/sh\necho "$0 ran" >> '${marker}'\nexit 0\n`;
}

async function plantRemoteHooks(bare: string, marker: string): Promise<void> {
  for (
    const hook of ["pre-receive", "update", "post-receive", "post-update", "reference-transaction"]
  ) {
    await Deno.writeTextFile(join(bare, "hooks", hook), canaryHook(marker), { mode: 0o755 });
  }
}

const FILES = {
  "README.md": "base\n",
  "tool.sh": "echo tool\n",
  "docs/link.md": "link:../README.md",
  // Attributes odek must not apply: end-of-line conversion and `ident` expansion.
  ".gitattributes": "*.txt text eol=crlf ident\n",
  "notes.txt": "line one\n$Id$\n",
};

Deno.test({
  name:
    "run workspace: clone at a ref, checkpoints pushed to the run branch, a takeover restores the last one, the diff is against the base",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-runws-" }));
    try {
      const bare = await bareRepository(root, "app", FILES);
      const marker = join(root, "hook-ran.marker");
      await plantRemoteHooks(bare, marker);
      const base = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
      const spec = { repository: bare, ref: "main", branch: "odek/run/r1" };
      const scratchRoot = join(root, "scratch");
      // A scratch root others can write is refused (the path is predictable).
      await Deno.mkdir(scratchRoot, { mode: 0o755 });
      await Deno.chmod(scratchRoot, 0o755);
      await assert.rejects(
        RunWorkspace.create({ git: spec, sessionId: "s1", runId: "r1", scratchRoot }),
        /must be a directory of this user with mode 0700/,
      );
      await Deno.chmod(scratchRoot, 0o700);

      let first: string;
      {
        await using ws = await RunWorkspace.create({
          git: spec,
          sessionId: "s1",
          runId: "r1",
          scratchRoot,
        });
        assert.equal(await ws.resolveBase(), base);
        assert.equal(await ws.checkout(base), base);
        // The blobs byte for byte: no CRLF, no $Id$ expansion, modes and links kept.
        assert.equal(await Deno.readTextFile(join(ws.workspace, "notes.txt")), "line one\n$Id$\n");
        assert.equal((await Deno.stat(join(ws.workspace, "tool.sh"))).mode! & 0o111, 0o111);
        assert.equal(await Deno.readLink(join(ws.workspace, "docs/link.md")), "../README.md");
        // The branch exists at the base from the start.
        assert.equal(
          (await git(["--git-dir", bare, "rev-parse", "odek/run/r1"], root)).trim(),
          base,
        );
        // An untouched workspace checkpoints to the base's tree: nothing is committed.
        assert.equal(await ws.checkpoint("after read (c0)", ["c0"]), base);

        await Deno.writeTextFile(join(ws.workspace, "out.txt"), "one\n");
        first = await ws.checkpoint("after shell (c1)", ["c1"]);
        assert.notEqual(first, base);
        // Nothing changed since: the same head, no second commit.
        assert.equal(await ws.checkpoint("after shell (c2)", ["c2"]), first);
        const log = await branchLog(bare, "odek/run/r1", base);
        assert.deepEqual(log.map((c) => c.subject), ["odek checkpoint: after shell (c1)"]);
        assert.equal(await fileAt(bare, first, "out.txt"), "one\n");
        const trailers = await git(["--git-dir", bare, "log", "-1", "--format=%B", first], root);
        assert.match(trailers, /Odek-Run: r1\nOdek-Session: s1\nOdek-Calls: c1/);
      }

      // Another worker takes over: the workspace is the branch's last checkpoint.
      await using ws = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "r1",
        scratchRoot,
      });
      assert.equal(await ws.checkout(base), first);
      assert.equal(await Deno.readTextFile(join(ws.workspace, "out.txt")), "one\n");
      await Deno.remove(join(ws.workspace, "README.md"));
      const second = await ws.checkpoint("after shell (c3)", ["c3"]);
      const log = await branchLog(bare, "odek/run/r1", base);
      assert.deepEqual(log.map((c) => c.id), [first, second]);
      const result = await ws.result();
      assert.equal(result.branch, "odek/run/r1");
      assert.equal(result.base, base);
      assert.equal(result.head, second);
      assert.equal(result.checkpoints, 2);
      assert.deepEqual(result.files, [
        { path: "README.md", change: "deleted" },
        { path: "out.txt", change: "added" },
      ]);
      assert.match(result.diff, /^\+one$/m);
      assert.equal(result.diffTruncated, false);
      // odek's git ran none of the remote repository's hooks.
      assert.equal(await Deno.readTextFile(marker).catch(() => "none"), "none");
      // Control: the test's own git does run them (the canary is live).
      await git(["--git-dir", bare, "update-ref", "refs/heads/control", base], root);
      const seed = join(root, "app-seed");
      await git(["push", "--quiet", bare, "main:refs/heads/control2"], seed);
      assert.match(await Deno.readTextFile(marker), /ran/);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "run workspace: a checkpoint pushed twice (a retry, a replay) is the same commit and a no-op",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-runws-" }));
    try {
      const bare = await bareRepository(root, "app", { "a.txt": "a\n" });
      const base = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
      const at = new Date("2026-12-02T03:00:00Z");
      await Deno.mkdir(join(root, "scratch"), { mode: 0o700 });
      const heads: string[] = [];
      // The same step done twice from the same start at the same checkpoint time (two branches,
      // so the second does not start from the first's push).
      for (const branch of ["odek/run/r2", "odek/run/r2-again"]) {
        await using ws = await RunWorkspace.create({
          git: { repository: bare, ref: base, branch },
          sessionId: "s2",
          runId: "r2",
          scratchRoot: join(root, "scratch"),
          now: () => at,
        });
        await ws.checkout(base);
        await Deno.writeTextFile(join(ws.workspace, "b.txt"), "b\n");
        heads.push(await ws.checkpoint("after write_file (c1)", ["c1"]));
      }
      assert.equal(heads[0], heads[1], "the commit is a function of tree, parent, label and time");
      // Pushing it again to the first branch changes nothing.
      const before = await git(["--git-dir", bare, "for-each-ref", "refs/heads/"], root);
      const again = await git(
        ["--git-dir", bare, "push", "--porcelain", bare, `${heads[1]}:refs/heads/odek/run/r2`],
        root,
      );
      assert.match(again, /\[up to date\]/);
      assert.equal(await git(["--git-dir", bare, "for-each-ref", "refs/heads/"], root), before);
      assert.equal((await branchLog(bare, "odek/run/r2", base)).length, 1);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("queued run: a git workspace is validated and its branch defaults to odek/run/<run id>", () => {
  const run = QueuedRunSchema.parse({
    runId: "r9",
    sessionId: "s9",
    task: "t",
    git: { repository: "/srv/git/app.git", ref: "main" },
  });
  assert.equal(run.git?.branch, "odek/run/r9");
  assert.equal(run.workspace, undefined);
  for (
    const git of [
      { repository: "--upload-pack=touch marker", ref: "main" },
      { repository: "ext::sh -c touch% marker", ref: "main" },
      { repository: "relative/path", ref: "main" },
      { repository: "/srv/git/app.git", ref: "--output=marker" },
      { repository: "/srv/git/app.git", ref: "main..other" },
      { repository: "/srv/git/app.git", ref: "main@{1}" },
      { repository: "/srv/git/app.git", ref: "main", branch: "a b" },
    ]
  ) {
    assert.equal(
      QueuedRunSchema.safeParse({ runId: "r", sessionId: "s", task: "t", git }).success,
      false,
      JSON.stringify(git),
    );
  }
  assert.equal(QueuedRunSchema.safeParse({ runId: "r", sessionId: "s", task: "t" }).success, false);
});
