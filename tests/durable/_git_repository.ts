/**
 * Test helper: a local bare repository with one commit on `main`, made with the test's own git
 * (argument arrays, never a shell string), and readers of what a run pushed into it.
 *
 * @module
 */
import { join } from "node:path";

/** Run the test's git with the machine's configuration off; throws on a non-zero exit. */
export async function git(args: string[], cwd: string, input?: string): Promise<string> {
  const child = new Deno.Command("git", {
    args: ["-c", "user.name=test", "-c", "user.email=test@localhost", ...args],
    cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      LANG: "C",
    },
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
  }
  const out = await child.output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** Whether the test's git is installed. */
export function gitMissing(): string | undefined {
  try {
    const out = new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync();
    return out.success ? undefined : "git --version failed";
  } catch {
    return "git is not installed (apt-get install -y git)";
  }
}

/**
 * A bare repository `<root>/<name>.git` whose `main` holds `files` (path → text; a value
 * starting with `link:` is a symlink).
 *
 * @returns the bare repository's path
 */
export async function bareRepository(
  root: string,
  name: string,
  files: Record<string, string>,
): Promise<string> {
  const bare = join(root, `${name}.git`);
  const seed = join(root, `${name}-seed`);
  await Deno.mkdir(bare, { recursive: true });
  await Deno.mkdir(seed, { recursive: true });
  await git(["init", "--bare", "--quiet", "-b", "main", bare], root);
  await git(["init", "--quiet", "-b", "main", seed], root);
  for (const [path, text] of Object.entries(files)) {
    const target = join(seed, path);
    await Deno.mkdir(join(target, ".."), { recursive: true });
    if (text.startsWith("link:")) await Deno.symlink(text.slice(5), target);
    else await Deno.writeTextFile(target, text, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
  await git(["add", "-A"], seed);
  await git(["commit", "--quiet", "-m", "base"], seed);
  await git(["push", "--quiet", bare, "main"], seed);
  return bare;
}

/** The commits of `branch` in `bare` since `base`, oldest first: id and subject. */
export async function branchLog(
  bare: string,
  branch: string,
  base: string,
): Promise<{ id: string; subject: string }[]> {
  const text = await git(
    ["--git-dir", bare, "log", "--reverse", "--format=%H %s", `${base}..refs/heads/${branch}`],
    bare,
  );
  return text.trim().split("\n").filter(Boolean).map((line) => ({
    id: line.slice(0, 40),
    subject: line.slice(41),
  }));
}

/** A file's text at `rev` in `bare`, or undefined when it has none. */
export async function fileAt(bare: string, rev: string, path: string): Promise<string | undefined> {
  try {
    return await git(["--git-dir", bare, "show", `${rev}:${path}`], bare);
  } catch {
    return undefined;
  }
}
