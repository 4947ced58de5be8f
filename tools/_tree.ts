/**
 * The `tree` tool (odek-go §4.1): a depth-limited outline of a workspace directory, walking like
 * `search_files` (`.gitignore` respected, dependency and build directories skipped, symlinks shown
 * but never followed).
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { relative } from "./_posix_path.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { resolveReadTarget } from "./_resolve_target.ts";
import { walkWorkspace } from "./_walk.ts";

/**
 * Outline `path`: one line per entry, indented two spaces per level, directories ending in `/`,
 * files with their size in bytes, symlinks as `name -> target`; a last line counts directories
 * and files shown and says when the depth or entry limit left some out.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns the outline
 * @throws {ToolFailure} outside the workspace (`denied`), missing or not a directory (`failed`)
 *
 * @example
 * ```ts
 * import { tree } from "./_tree.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.mkdir(`${ws}/src`);
 *   await Deno.writeTextFile(`${ws}/src/a.ts`, "hi");
 *   const out = await tree({ path: ".", depth: 3, max_entries: 500 }, context);
 *   if (!out.startsWith("./\n  src/\n    a.ts (2 bytes)\n")) throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function tree(
  args: ToolArgs<"tree">,
  context: ToolContext,
): Promise<string> {
  const { path, depth, max_entries } = args;
  const { workspace, roots, signal } = context;
  const root = await Deno.realPath(workspace);
  const base = await resolveReadTarget(root, path, roots);
  if (!(await Deno.stat(base)).isDirectory) {
    throw new ToolFailure(
      "failed",
      `${path} is not a directory: use file_info for a file`,
    );
  }
  const lines = [`${relative(root, base) || "."}/`];
  let directories = 0;
  let files = 0;
  let cut = false;
  let deeper = false;
  for await (
    const entry of walkWorkspace(root, base, { maxDepth: depth, signal })
  ) {
    if (directories + files >= max_entries) {
      cut = true;
      break;
    }
    const indent = "  ".repeat(entry.depth);
    if (entry.kind === "directory") {
      directories++;
      const hidden = entry.depth === depth && (await hasEntries(entry.real));
      deeper ||= hidden;
      lines.push(`${indent}${entry.name}/${hidden ? " …" : ""}`);
    } else if (entry.kind === "symlink") {
      files++;
      const target = await Deno.readLink(entry.real).catch(() => "?");
      lines.push(`${indent}${entry.name} -> ${target}`);
    } else {
      files++;
      const size = await Deno.lstat(entry.real).then((i) => i.size, () => 0);
      lines.push(
        `${indent}${entry.name}${entry.kind === "file" ? ` (${size} bytes)` : " (special)"}`,
      );
    }
  }
  const notes = [
    `${directories} director${directories === 1 ? "y" : "ies"}, ${files} file${
      files === 1 ? "" : "s"
    }`,
  ];
  if (deeper) notes.push(`"…" marks directories deeper than depth=${depth}`);
  if (cut) {
    notes.push(
      `cut at max_entries=${max_entries}: narrow the path or lower the depth`,
    );
  }
  return `${lines.join("\n")}\n[${notes.join("; ")}]`;
}

async function hasEntries(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
  } catch {
    // unreadable: shown as empty
  }
  return false;
}
