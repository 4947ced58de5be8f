/**
 * Reproductions of weaknesses found in queued runs on a git repository (attacker review, issue 22).
 * NOT part of the suite (the name does not end in `_test.ts`): each test here FAILS on the code it
 * was written against, because it asserts the safe behaviour the code does not have yet. Run one
 * explicitly: `deno test --allow-all tests/durable/git_workspace_attack_repro.ts`.
 *
 * Every payload is a canary: a hook that appends a line to a marker file in the test's own temp
 * folder. Repositories are local bare repositories in that folder.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { RunWorkspace } from "../../src/durable/run_workspace.ts";
import { QueuedRunGitSchema } from "../../src/durable/queued_run.ts";
import { bareRepository, git, gitMissing } from "./_git_repository.ts";

const missing = gitMissing();

/** A hook that appends its name to the marker (the canary's only effect). */
function canaryHook(marker: string): string {
  return `#!/bin/sh\necho "$0 ran" >> '${marker}'\nexit 0\n`;
}

async function plantHooks(bare: string, marker: string): Promise<void> {
  for (
    const hook of ["pre-receive", "update", "post-receive", "post-update", "reference-transaction"]
  ) {
    await Deno.writeTextFile(join(bare, "hooks", hook), canaryHook(marker), { mode: 0o755 });
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function tempRoot(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-attack22-" }));
}

Deno.test({
  name: "repro: a relative remote path runs the remote repository's receive hooks on the worker",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const hostile = await bareRepository(root, "hostile", { "README.md": "x\n" });
      const marker = join(root, "canary.marker");
      await plantHooks(hostile, marker);
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      // git runs with cwd = <scratch>/<hash>/repo.git: a relative path from there to `hostile`.
      const gitdirGuess = join(scratchRoot, "0".repeat(24), "repo.git");
      const remote = relative(gitdirGuess, hostile);
      const spec = { repository: bare, ref: "main", branch: "odek/run/r1", remote };
      // The schema accepts it (only `-`, NUL/newline and ext:: are refused for remote).
      assert.ok(QueuedRunGitSchema.safeParse(spec).success, "schema accepted the relative remote");
      await using ws = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "r1",
        scratchRoot,
      });
      await ws.checkout(await ws.resolveBase());
      await Deno.writeTextFile(join(ws.workspace, "out.txt"), "hi\n");
      await ws.checkpoint("after write (c1)", ["c1"]).catch(() => {});
      assert.equal(
        await exists(marker),
        false,
        `a receive hook ran on the worker: ${await Deno.readTextFile(marker).catch(() => "")}`,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "repro: core.alternateRefsCommand in a local remote's config runs on the worker at push",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const other = await bareRepository(root, "other", { "x.md": "x\n" });
      const marker = join(root, "canary.marker");
      const script = join(root, "alt.sh");
      await Deno.writeTextFile(script, canaryHook(marker), { mode: 0o755 });
      await Deno.writeTextFile(
        join(bare, "objects", "info", "alternates"),
        `${join(other, "objects")}\n`,
      );
      await git(["--git-dir", bare, "config", "core.alternateRefsCommand", script], root);
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      const spec = { repository: bare, ref: "main", branch: "odek/run/r1" };
      await using ws = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "r1",
        scratchRoot,
      });
      await ws.checkout(await ws.resolveBase());
      assert.equal(
        await exists(marker),
        false,
        `the remote's core.alternateRefsCommand ran on the worker: ${await Deno.readTextFile(marker)
          .catch(() => "")}`,
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "repro: a non-bare local repository with receive.denyCurrentBranch=updateInstead runs its filters and fsmonitor on the worker",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const marker = join(root, "canary.marker");
      const program = join(root, "canary.sh");
      await Deno.writeTextFile(program, `#!/bin/sh\necho "$0 ran" >> '${marker}'\ncat\nexit 0\n`, {
        mode: 0o755,
      });
      const repo = join(root, "work");
      await Deno.mkdir(repo);
      await git(["init", "--quiet", "-b", "main", repo], root);
      await Deno.writeTextFile(join(repo, ".gitattributes"), "* filter=canary\n");
      await Deno.writeTextFile(join(repo, "README.md"), "base\n");
      await git(["-C", repo, "add", "-A"], root);
      await git(["-C", repo, "commit", "--quiet", "-m", "base"], root);
      await git(["-C", repo, "checkout", "--quiet", "-b", "work"], root);
      for (
        const [key, value] of [
          ["receive.denyCurrentBranch", "updateInstead"],
          ["filter.canary.smudge", program],
          ["filter.canary.clean", program],
          ["core.fsmonitor", program],
        ]
      ) {
        await git(["-C", repo, "config", key, value], root);
      }
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      const spec = { repository: repo, ref: "main", branch: "work" };
      assert.ok(QueuedRunGitSchema.safeParse(spec).success);
      await using ws = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "r1",
        scratchRoot,
      });
      await ws.checkout(await ws.resolveBase()).catch(() => {});
      await Deno.writeTextFile(join(ws.workspace, "out.txt"), "hi\n");
      await ws.checkpoint("after write (c1)", ["c1"]).catch(() => {});
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

Deno.test({
  name:
    "repro: a blob far over the checkpoint caps (a 64 MiB run of zeros, about 64 KiB in the pack) is read whole into memory and written",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const big = join(root, "zeros.bin");
      await Deno.writeFile(big, new Uint8Array(64 * 1024 * 1024));
      const oid = (await git(["--git-dir", bare, "hash-object", "-w", big], root)).trim();
      await Deno.remove(big);
      const readme = (await git(["--git-dir", bare, "rev-parse", "main:README.md"], root)).trim();
      const tree = (await git(
        ["--git-dir", bare, "mktree", "-z"],
        root,
        [`100644 blob ${readme}\tREADME.md`, `100644 blob ${oid}\tzeros.bin`, ""].join("\0"),
      )).trim();
      const commit = (await git(["--git-dir", bare, "commit-tree", tree, "-m", "big"], root))
        .trim();
      await git(["--git-dir", bare, "update-ref", "refs/heads/main", commit], root);
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      await using ws = await RunWorkspace.create({
        git: { repository: bare, ref: "main", branch: "odek/run/big" },
        sessionId: "big",
        runId: "big",
        scratchRoot,
      });
      const outcome = await ws.checkout(await ws.resolveBase()).then(
        () => "checked out",
        (e: Error) => e.message,
      );
      const written = await Deno.stat(join(ws.workspace, "zeros.bin")).then((s) => s.size, () => 0);
      // The checkpoint store refuses files over 16 MiB (CHECKPOINT_UNAVAILABLE at every step), so
      // the safe behaviour is to refuse at checkout, before holding the blob in memory.
      assert.equal(written, 0, `${outcome}: wrote ${written} bytes of one blob`);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "repro: a new run naming another run's branch restores that run's workspace and pushes onto it",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      {
        await using a = await RunWorkspace.create({
          git: { repository: bare, ref: "main", branch: "odek/run/victim" },
          sessionId: "victim",
          runId: "victim",
          scratchRoot,
        });
        await a.checkout(await a.resolveBase());
        await Deno.writeTextFile(join(a.workspace, "private.txt"), "victim's work\n");
        await a.checkpoint("after write (v1)", ["v1"]);
      }
      const before = (await git(["--git-dir", bare, "rev-parse", "odek/run/victim"], root)).trim();
      // Accepted by the schema serve uses for POST /api/runs (repository, ref, branch).
      const spec = { repository: bare, ref: "main", branch: "odek/run/victim" };
      assert.ok(QueuedRunGitSchema.safeParse(spec).success);
      {
        await using b = await RunWorkspace.create({
          git: spec,
          sessionId: "intruder",
          runId: "intruder",
          scratchRoot,
        });
        await b.checkout(await b.resolveBase()).catch(() => {});
        assert.equal(
          await exists(join(b.workspace, "private.txt")),
          false,
          "the intruding run got the victim run's workspace",
        );
        await Deno.writeTextFile(join(b.workspace, "x.txt"), "x\n");
        await b.checkpoint("after write (i1)", ["i1"]).catch(() => {});
      }
      const after = (await git(["--git-dir", bare, "rev-parse", "odek/run/victim"], root)).trim();
      assert.equal(after, before, "the intruding run pushed onto the victim run's branch");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "repro: a second execution of a run on the same machine deletes the live first one's workspace",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      const spec = { repository: bare, ref: "main", branch: "odek/run/r1" };
      await using first = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "r1",
        scratchRoot,
      });
      await first.checkout(await first.resolveBase());
      await Deno.writeTextFile(join(first.workspace, "in-progress.txt"), "unsaved\n");
      // A takeover on the same machine while the first execution is still alive (a stalled
      // worker whose lease expired): it should fail or wait, not delete the live workspace.
      const second = await RunWorkspace.create({
        git: spec,
        sessionId: "s1",
        runId: "r1",
        scratchRoot,
      })
        .catch((error: Error) => error);
      const stillThere = await exists(join(first.workspace, "in-progress.txt"));
      if (!(second instanceof Error)) await second[Symbol.asyncDispose]();
      assert.equal(stillThere, true, "the second execution deleted the first one's live workspace");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "repro: ref HEAD with branch main pushes the run's checkpoints onto main",
  ignore: missing !== undefined,
  fn: async () => {
    const root = await tempRoot();
    try {
      const bare = await bareRepository(root, "app", { "README.md": "base\n" });
      const main = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
      const scratchRoot = join(root, "scratch");
      await Deno.mkdir(scratchRoot, { mode: 0o700 });
      for (
        const spec of [
          { repository: bare, ref: "HEAD", branch: "main" },
          { repository: bare, ref: main, branch: "main" },
          { repository: bare, ref: "main", branch: "main", remote: bare },
        ]
      ) {
        const parsed = QueuedRunGitSchema.safeParse(spec);
        if (!parsed.success) continue; // refused: safe for this spelling
        const before = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
        {
          await using ws = await RunWorkspace.create({
            git: { ...spec, branch: spec.branch },
            sessionId: "s1",
            runId: `r-${spec.ref}-${spec.remote ?? ""}`.replaceAll("/", "_"),
            scratchRoot,
          });
          await ws.checkout(await ws.resolveBase());
          await Deno.writeTextFile(join(ws.workspace, "out.txt"), "hi\n");
          await ws.checkpoint("after write (c1)", ["c1"]);
        }
        const after = (await git(["--git-dir", bare, "rev-parse", "main"], root)).trim();
        assert.equal(
          after,
          before,
          `${JSON.stringify(spec)} moved main: a checkpoint landed on it`,
        );
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
