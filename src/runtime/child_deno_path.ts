/**
 * Which `deno` binary runs the tool children. Under `deno run` it is the running binary
 * (`Deno.execPath()`); a compiled odek is itself the executable and takes no `--allow-*` flags,
 * so it needs an external `deno` of the pinned version: `ODEK_DENO`, else `deno` on `PATH`.
 *
 * @module
 */
/** The Deno version odek is built and tested with; children should run with the same. */
export const PINNED_DENO_VERSION = "2.9.6";

/** Where the children's deno comes from. */
export interface ChildDeno {
  /** Absolute path, or `null` when a compiled odek finds none. */
  path: string | null;
  /** `self` (the running deno), `ODEK_DENO`, or `PATH`. */
  source: "self" | "ODEK_DENO" | "PATH";
  /** Whether this odek is a `deno compile` binary. */
  compiled: boolean;
}

/**
 * Resolve the children's deno.
 *
 * @param env the environment (`ODEK_DENO`, `PATH`)
 * @param execPath the running executable (`Deno.execPath()`)
 *
 * @example Under deno run
 * ```ts
 * import { childDenoPath } from "./child_deno_path.ts";
 * const d = childDenoPath({}, "/usr/local/bin/deno");
 * if (d.path !== "/usr/local/bin/deno" || d.compiled) throw new Error(JSON.stringify(d));
 * ```
 */
export function childDenoPath(
  env: Record<string, string | undefined>,
  execPath: string,
): ChildDeno {
  const base = execPath.split("/").pop() ?? "";
  const compiled = !/^deno(\.exe)?$/.test(base);
  if (!compiled) return { path: execPath, source: "self", compiled };
  if (env.ODEK_DENO) return { path: env.ODEK_DENO, source: "ODEK_DENO", compiled };
  for (const dir of (env.PATH ?? "").split(":")) {
    if (!dir) continue;
    const candidate = `${dir.replace(/\/+$/, "")}/deno`;
    try {
      if (Deno.statSync(candidate).isFile) return { path: candidate, source: "PATH", compiled };
    } catch {
      // not here
    }
  }
  return { path: null, source: "PATH", compiled };
}
