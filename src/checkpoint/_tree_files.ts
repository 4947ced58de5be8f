/**
 * A flat map of recorded paths ⇄ the shadow repository's nested tree objects.
 *
 * @module
 */
import {
  decodeTree,
  encodeTree,
  type GitMode,
  type GitTreeEntry,
  hashObject,
  readObject,
  writeObject,
} from "./_git_objects.ts";

/** A recorded path as a tree holds it. */
export interface TreeFile {
  mode: Exclude<GitMode, "40000">;
  oid: string;
}

interface Dir {
  files: Map<string, TreeFile>;
  dirs: Map<string, Dir>;
}

/** Folder path → its entries as last written and the tree id they made (a folder unchanged is not encoded again). */
export type TreeMemo = Map<string, { signature: string; oid: string }>;

/**
 * Write the trees of `files` (paths relative, `/`-separated); objects already in `known` are not
 * looked up again, and a folder whose entries are what `memo` holds for it keeps its tree id.
 *
 * @returns the root tree's id
 */
export function writeTreeFiles(
  gitdir: string,
  files: ReadonlyMap<string, TreeFile>,
  known: Set<string>,
  memo: TreeMemo = new Map(),
): string {
  const root: Dir = { files: new Map(), dirs: new Map() };
  for (const [path, file] of files) {
    const parts = path.split("/");
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, next = { files: new Map(), dirs: new Map() });
      dir = next;
    }
    dir.files.set(parts.at(-1)!, file);
  }
  return write(root, "");

  function write(dir: Dir, path: string): string {
    const entries: GitTreeEntry[] = [];
    for (const [name, sub] of dir.dirs) {
      entries.push({
        mode: "40000",
        name,
        oid: write(sub, path === "" ? name : `${path}/${name}`),
      });
    }
    for (const [name, file] of dir.files) entries.push({ mode: file.mode, name, oid: file.oid });
    let signature = "";
    for (const e of entries) signature += `${e.mode} ${e.name}\0${e.oid}\n`;
    const remembered = memo.get(path);
    if (remembered?.signature === signature && known.has(remembered.oid)) return remembered.oid;
    const body = encodeTree(entries);
    const { oid } = hashObject("tree", body);
    if (!known.has(oid)) writeObject(gitdir, "tree", body);
    known.add(oid);
    memo.set(path, { signature, oid });
    return oid;
  }
}

/** Every recorded path of a tree, flattened. */
export function readTreeFiles(gitdir: string, tree: string): Map<string, TreeFile> {
  const out = new Map<string, TreeFile>();
  const pending: [string, string][] = [["", tree]];
  while (pending.length > 0) {
    const [prefix, oid] = pending.pop()!;
    for (const entry of decodeTree(readObject(gitdir, oid, "tree"))) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.mode === "40000") pending.push([path, entry.oid]);
      else out.set(path, { mode: entry.mode, oid: entry.oid });
    }
  }
  return out;
}
