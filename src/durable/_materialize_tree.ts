/**
 * Write a commit's files into an empty directory without a git checkout (private to `durable/`):
 * the entries come from `git ls-tree`, the bytes from `git cat-file --batch`, both through the
 * broker's git on odek's bare repository, and odek writes them itself. So no attribute of the
 * repository applies (no filter, no end-of-line or `ident` conversion, no working-tree encoding):
 * the files are the blobs byte for byte, and a checkpoint of an untouched workspace has the
 * commit's tree. Paths are checked (no `..`, `.git`, empty or absolute part); symlinks are
 * written last, so no file is ever written through one; submodules (gitlinks) are not checked out.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { DEFAULT_CHECKPOINT_LIMITS } from "../checkpoint/git_checkpoint_store.ts";
import { runGit } from "../broker/run_git.ts";

/** One entry of a tree listing. */
interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  path: string;
}

/** What was written. */
export interface MaterializedTree {
  /** Files and symlinks written. */
  files: number;
  /** Paths not written, each with why (a submodule, an unsafe name). */
  skipped: { path: string; reason: string }[];
}

const decoder = new TextDecoder();

/**
 * Write the files of `commit` into `dir` (which must be empty).
 *
 * @param gitdir odek's bare repository holding the commit's objects
 * @param commit the commit (40 hex digits)
 * @param dir the directory to fill
 * @param limits the caps of the whole tree, checked before any blob is read @default the
 *   checkpoints' (20 000 files, 512 MiB)
 * @returns how many files were written and what was skipped
 * @throws {OdekError} `GIT_FAILED` when git cannot list or read the tree
 */
export async function materializeTree(
  gitdir: string,
  commit: string,
  dir: string,
  limits: { maxFiles: number; maxBytes: number } = DEFAULT_CHECKPOINT_LIMITS,
): Promise<MaterializedTree> {
  const listed = await runGit({
    gitdir,
    args: ["ls-tree", "-r", "-z", "-l", "--full-tree", commit],
  });
  if (listed.code !== 0) {
    throw new OdekError("GIT_FAILED", `git ls-tree ${commit} failed: ${listed.stderr.trim()}`);
  }
  const skipped: MaterializedTree["skipped"] = [];
  let bytes = 0;
  const entries: TreeEntry[] = [];
  for (const line of decoder.decode(listed.stdout).split("\0")) {
    if (line === "") continue;
    const tab = line.indexOf("\t");
    const [mode, type, oid, size] = line.slice(0, tab).split(/ +/);
    const path = line.slice(tab + 1);
    if (type === "blob") bytes += Number(size);
    if (!safePath(path)) skipped.push({ path, reason: "unsafe path" });
    else if (type !== "blob") skipped.push({ path, reason: `${type} (a submodule)` });
    else entries.push({ mode, type, oid, path });
  }
  // Before any blob is read (git reads them whole): a pack can hold gigabytes of zeros in kilobytes.
  const { maxFiles, maxBytes } = limits;
  if (entries.length > maxFiles || bytes > maxBytes) {
    throw new OdekError(
      "GIT_FAILED",
      `The commit ${commit} holds ${entries.length} files, ${bytes} bytes: over a run workspace's caps (${maxFiles} files, ${maxBytes} bytes, the checkpoints' own); run it on a smaller tree.`,
    );
  }
  const blobs = await readBlobs(gitdir, [...new Set(entries.map((e) => e.oid))]);
  const links: TreeEntry[] = [];
  for (const entry of entries) {
    if (entry.mode === "120000") {
      links.push(entry);
      continue;
    }
    const target = join(dir, entry.path);
    await Deno.mkdir(dirname(target), { recursive: true });
    await Deno.writeFile(target, blobs.get(entry.oid)!, {
      createNew: true,
      mode: entry.mode === "100755" ? 0o755 : 0o644,
    });
  }
  for (const entry of links) {
    const target = join(dir, entry.path);
    await Deno.mkdir(dirname(target), { recursive: true });
    await Deno.symlink(decoder.decode(blobs.get(entry.oid)!), target);
  }
  return { files: entries.length, skipped };
}

/** A relative path of plain names: no empty, `.`, `..` or `.git` part (any case), no NUL. */
function safePath(path: string): boolean {
  if (path.includes("\0") || path.startsWith("/")) return false;
  return path.split("/").every((part) =>
    part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git"
  );
}

/** Read blobs with one `git cat-file --batch`. */
async function readBlobs(gitdir: string, oids: string[]): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  if (oids.length === 0) return out;
  const read = await runGit({
    gitdir,
    args: ["cat-file", "--batch"],
    input: new TextEncoder().encode(oids.map((oid) => `${oid}\n`).join("")),
  });
  if (read.code !== 0) {
    throw new OdekError("GIT_FAILED", `git cat-file --batch failed: ${read.stderr.trim()}`);
  }
  const bytes = read.stdout;
  let at = 0;
  for (const oid of oids) {
    const end = bytes.indexOf(0x0a, at);
    const header = decoder.decode(bytes.subarray(at, end)).split(" ");
    if (header[0] !== oid || header[1] !== "blob") {
      throw new OdekError("GIT_FAILED", `git cat-file gave ${header.join(" ")} for ${oid}.`);
    }
    const size = Number(header[2]);
    out.set(oid, bytes.subarray(end + 1, end + 1 + size));
    at = end + 1 + size + 1;
  }
  return out;
}
