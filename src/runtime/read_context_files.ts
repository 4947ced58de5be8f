/**
 * Context files (`contextFiles` of the user and project layers), read into a new session's first
 * messages beside `AGENTS.md`. A hostile repository must not be able to send a file outside the
 * workspace (`~/.aws/credentials`) to the model: a workspace entry must resolve (real path, no
 * link anywhere on the way) inside the workspace, outside protected and secret-bearing paths
 * and deny rules, and is capped; anything else is refused with a warning.
 *
 * @module
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { readVerifiedFile } from "../_util/read_verified_file.ts";
import type { ValueOrigin } from "../config/merge_config_layers.ts";
import type { Verdict } from "../danger/verdict.ts";

/** Largest context file read, in bytes; a longer one is cut with a note (as `AGENTS.md`). */
export const MAX_CONTEXT_FILE_BYTES = 256 * 1024;
/** Bytes of context files read in all; the files after the budget is spent are refused. */
export const MAX_CONTEXT_BYTES = 1024 * 1024;

/** One context file as read. */
export interface ContextFile {
  /** As written in the configuration. */
  path: string;
  /** Its real path. */
  real: string;
  /** Its text (cut with a note past {@linkcode MAX_CONTEXT_FILE_BYTES}). */
  text: string;
  /**
   * Fenced as untrusted content: every file in the workspace (the project wrote it); only a user
   * layer's file outside the workspace is the operator's own.
   */
  untrusted: boolean;
}

/** What the reader needs besides the entries. */
export interface ReadContextFilesOptions {
  /** The workspace (real path). */
  workspace: string;
  /** The home (`~/` in a user layer's entry). */
  home: string;
  /**
   * The host's verdict on reading a path (`read_file` at the host's context, deny rules
   * included): a file whose read is anything but a plain allowed `read` is refused.
   */
  classifyRead: (path: string) => Verdict;
}

/** Names in the workspace that hold secrets by convention: never context. */
const SECRET_NAMES =
  /(^|\/)(\.env(\..*)?|\.envrc|.*\.(pem|key|p12|pfx|keystore|jks)|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|\.npmrc|\.pypirc|\.netrc|\.git-credentials|secrets\.env)$|(^|\/)\.git(\/|$)/;

/**
 * Read the context files, in order. Entries from the project layer, and relative entries from
 * any layer, must be inside the workspace; a user layer's absolute or `~/` entry may be
 * anywhere outside protected and secret-bearing paths.
 *
 * @param entries the effective `contextFiles` with each entry's origin
 * @param options the workspace, the home and the read verdict
 * @returns the files read and one warning per refused entry (naming it and its layer)
 *
 * @example A project may not name a file outside the workspace
 * ```ts
 * import { readContextFiles } from "./read_context_files.ts";
 * const ws = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.writeTextFileSync(`${ws}/style.md`, "Use tabs.");
 * const origin = { kind: "project" as const, source: `${ws}/odek.jsonc` };
 * const read = await readContextFiles(
 *   [{ path: "style.md", origin }, { path: "/etc/hostname", origin }],
 *   {
 *     workspace: ws,
 *     home: "/home/ada",
 *     classifyRead: () => ({ parts: [], decision: "allow", reason: "nothing to run" }),
 *   },
 * );
 * Deno.removeSync(ws, { recursive: true });
 * if (read.files.length !== 1 || !read.warnings[0].includes("outside the workspace")) throw new Error();
 * ```
 */
export async function readContextFiles(
  entries: readonly { path: string; origin: ValueOrigin }[],
  options: ReadContextFilesOptions,
): Promise<{ files: ContextFile[]; warnings: string[] }> {
  const files: ContextFile[] = [];
  const warnings: string[] = [];
  let budget = MAX_CONTEXT_BYTES;
  const ws = options.workspace;
  for (const { path, origin } of entries) {
    const refuse = (why: string) =>
      warnings.push(
        `context file ${
          JSON.stringify(path)
        } (${origin.kind} layer, ${origin.source}) not read: ${why}`,
      );
    const fromUser = origin.kind !== "project";
    const expanded = path === "~" || path.startsWith("~/")
      ? (fromUser ? join(options.home, path.slice(1)) : undefined)
      : isAbsolute(path)
      ? path
      : resolve(ws, path);
    if (expanded === undefined) {
      refuse("a project may name only files inside the workspace");
      continue;
    }
    const inside = within(ws, expanded);
    if (!inside && !fromUser) {
      refuse("it is outside the workspace, and a project may name only files inside it");
      continue;
    }
    if (!inside && !isAbsolute(path) && !path.startsWith("~")) {
      refuse("a relative path must stay inside the workspace");
      continue;
    }
    let real: string;
    try {
      real = await Deno.realPath(expanded);
    } catch {
      refuse("it does not exist");
      continue;
    }
    if (inside && real !== expanded) {
      refuse(
        within(ws, real)
          ? "it is a symlink, or under one (context files are read without following links)"
          : "it resolves outside the workspace through a symlink",
      );
      continue;
    }
    if (inside && SECRET_NAMES.test(relative(ws, real))) {
      refuse("its name marks it as holding secrets");
      continue;
    }
    const verdict = options.classifyRead(real);
    if (verdict.decision !== "allow" || verdict.parts.some((p) => p.riskClass !== "read")) {
      refuse(`reading it is not a plain read (${verdict.reason})`);
      continue;
    }
    if (budget <= 0) {
      refuse(`the context files already read fill the ${MAX_CONTEXT_BYTES / 1024} KiB budget`);
      continue;
    }
    const cap = Math.min(MAX_CONTEXT_FILE_BYTES, budget);
    const read = inside
      ? await readVerifiedFile(ws, relative(ws, real), { maxBytes: cap })
      : await readVerifiedFile("/", real, { maxBytes: cap });
    if (read.type !== "file") {
      refuse(read.type === "missing" ? "it does not exist" : read.reason);
      continue;
    }
    budget -= read.bytes.length;
    const text = new TextDecoder().decode(read.bytes);
    files.push({
      path,
      real,
      text: read.size > read.bytes.length
        ? `${text}\n[odek: ${path} is ${read.size} bytes; only the first ${read.bytes.length} were read]`
        : text,
      untrusted: inside || !fromUser,
    });
  }
  return { files, warnings };
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
