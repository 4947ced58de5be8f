/**
 * The instruction files a new session starts with: `ODEK_HOME/AGENTS.md` (the operator's own),
 * the `AGENTS.md` of parent directories inside the workspace's git repository, and the
 * workspace's own — each read with the open-then-verify helper and capped.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import { isInside } from "../config/validate_workspace.ts";
import { readAgentsMd } from "../loop/initial_messages.ts";

/** What {@linkcode readInstructions} found. */
export interface Instructions {
  /** `ODEK_HOME/AGENTS.md`: trusted, given to the model as it is. */
  operator?: string;
  /** Project files, farthest first, the workspace's last: each fenced as untrusted. */
  project: { source: string; text: string }[];
}

/** Where to look. */
export interface ReadInstructionsOptions {
  /** The workspace (a validated real path). */
  workspace: string;
  /** ODEK_HOME. */
  odekHome: string;
  /** The home directory: no parent above it is read. */
  home: string;
  /** Directories no parent `AGENTS.md` is read from (ODEK_HOME, the install directory). */
  protectedRoots: readonly string[];
}

/**
 * Read the instruction files. Parent directories count only when the workspace is inside a git
 * repository (a parent holding `.git`): from the repository's root down to the workspace's
 * parent, never a directory above the home directory (`/`, `/home`) and never one inside a
 * protected root; the nearest comes last. Missing, refused (a symlink) and empty files are left
 * out.
 *
 * @example A workspace outside any repository: only its own file
 * ```ts
 * import { readInstructions } from "./read_instructions.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${ws}/AGENTS.md`, "Run deno task test.\n");
 * const found = await readInstructions({ workspace: ws, odekHome: `${ws}/.odek`, home: ws, protectedRoots: [] });
 * if (found.project.length !== 1 || found.project[0].source !== "AGENTS.md") throw new Error();
 * await Deno.remove(ws, { recursive: true });
 * ```
 */
export async function readInstructions(options: ReadInstructionsOptions): Promise<Instructions> {
  const { workspace } = options;
  const operator = await readAgentsMd(options.odekHome);
  const project: Instructions["project"] = [];
  for (const dir of parentsInRepository(options)) {
    const text = await readAgentsMd(dir);
    if (text?.trim()) project.push({ source: join(relative(workspace, dir), "AGENTS.md"), text });
  }
  const own = await readAgentsMd(workspace);
  if (own?.trim()) project.push({ source: "AGENTS.md", text: own });
  return { ...(operator?.trim() ? { operator } : {}), project };
}

/** The workspace's parents from its repository's root down (empty outside a repository). */
function parentsInRepository(options: ReadInstructionsOptions): string[] {
  const { workspace, home, protectedRoots } = options;
  const aboveHome = (dir: string) => dir === "/" || (dir !== home && isInside(home, dir));
  const chain: string[] = [];
  let root: string | undefined;
  for (let dir = workspace; !aboveHome(dir); dir = dirname(dir)) {
    if (dir !== workspace) chain.push(dir);
    if (exists(join(dir, ".git"))) {
      root = dir;
      break;
    }
    if (dir === dirname(dir)) break;
  }
  if (root === undefined || root === workspace) return [];
  return chain.reverse().filter((dir) =>
    !protectedRoots.some((p) => dir === p || isInside(dir, p))
  );
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
