/**
 * The module-tool child's part of the renderer: which library tool (`defineTool`) it serves, its
 * flags, and which directories may hold that tool's module. The child may read the module's
 * directory and has it bound, so the directory must not reveal what every sandbox hides.
 *
 * @module
 */
import { dirname, isAbsolute, normalize, relative, sep } from "node:path";
import type { PermissionSet } from "./permission_set.ts";

/**
 * The library tool (`defineTool`) a module-tool child (`tools/module_tool.ts`) serves. Its
 * module's directory must be one of the child's read paths (the pool adds it to the call's scope,
 * see `ToolChildPool`): so it is bound read-only at its real path (a write path of the same
 * directory wins) and in `--allow-read`, since the child imports the module dynamically, which
 * Deno checks. The child resolves imports with the tools' import map and the global npm cache
 * only (`--no-config --no-lock --node-modules-dir=none --import-map`), so the module may import
 * local files and `npm:` packages already cached, never remote code (`--no-remote
 * --cached-only`). The path and the name reach the child as `--module=<path>` and `--tool=<name>`
 * after the entry.
 */
export interface ModuleChild {
  /** The handler module: absolute, realpathed; its directory passes `moduleDirProblem`. */
  path: string;
  /** The tool's name (`^[A-Za-z0-9_-]{1,64}$`). */
  tool: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** What {@linkcode moduleDirProblem} compares a module directory with (a sandbox context has it). */
export interface ModuleDirContext {
  home: string;
  protectedRoots: readonly string[];
  hiddenPaths?: { dirs: readonly string[] };
}

/**
 * Why `dir` cannot be a library tool's module directory, or `undefined` when it can: it must be
 * an absolute, normalized path without a comma or a control character that is not `/`, neither
 * the home directory nor one of its ancestors (the home of every sandbox is empty), neither
 * inside nor around a protected root (`ODEK_HOME`, the install directory), and not inside a
 * directory every sandbox hides (`hiddenPaths`).
 *
 * @param dir the realpathed directory of the module
 * @param context the home, the protected roots and the hidden directories of the sandbox
 * @returns the reason, naming the directory and what to do; `undefined` when it may be bound
 */
export function moduleDirProblem(
  dir: string,
  context: ModuleDirContext,
): string | undefined {
  const move = "move the tool's module into a directory of its own";
  // deno-lint-ignore no-control-regex
  if (!isAbsolute(dir) || normalize(dir) !== dir || /[,\x00-\x1f]/.test(dir)) {
    return `The module directory ${
      JSON.stringify(dir)
    } is not an absolute, normalized path without commas and control characters: ${move}`;
  }
  if (dir === "/" || within(dir, context.home)) {
    return `The module directory ${dir} would show the home directory ${context.home} (empty in every sandbox) to the tool: ${move}`;
  }
  const root = context.protectedRoots.find((r) => within(r, dir) || within(dir, r));
  if (root !== undefined) {
    return `The module directory ${dir} overlaps ${root}, which no sandbox may see: ${move}`;
  }
  const hidden = (context.hiddenPaths?.dirs ?? []).find((h) => within(h, dir));
  if (hidden !== undefined) {
    return `The module directory ${dir} lies in ${hidden}, which every sandbox hides: ${move}`;
  }
  return undefined;
}

/**
 * The flags that give a tool child its import map: the tools' config for a catalogue child, with
 * its packages read from `tools/node_modules` as `deno task setup` installed them against the lock
 * (`--node-modules-dir=manual --no-lock`: the child, whose `node_modules` is read-only, neither
 * re-checks the lock nor tries seven times to lock `node_modules` for an install it cannot do,
 * ~2.5 ms of a new scope's start, docs/performance.md); the tools' import map alone (no config, no
 * lock, the global npm cache) for a module-tool child, whose module lives outside `tools/`. The
 * module is checked first.
 *
 * @param module the library tool, if the child serves one
 * @param context the sandbox's home, protected roots and hidden paths; the call's set; whether
 *   the child runs without permissions
 * @param toolsDir the checked `toolsDir`
 * @returns the flags, before the entry
 * @throws {RangeError} for a module child without permissions, a bad tool name, a module path
 *   that is not absolute and normalized, a directory {@linkcode moduleDirProblem} refuses, or a
 *   set that does not make the module's directory readable
 */
export function moduleImportFlags(
  module: ModuleChild | undefined,
  context: ModuleDirContext & { set: PermissionSet; isolated: boolean },
  toolsDir: string,
): string[] {
  if (module === undefined) {
    return ["--config", `${toolsDir}/deno.json`, "--node-modules-dir=manual", "--no-lock"];
  }
  if (context.isolated) {
    throw new RangeError("A module-tool child runs with its scope, not without one");
  }
  if (!TOOL_NAME.test(module.tool)) {
    throw new RangeError(`Not a tool name: ${JSON.stringify(module.tool)}`);
  }
  if (!isAbsolute(module.path) || normalize(module.path) !== module.path) {
    throw new RangeError(`The module ${JSON.stringify(module.path)} is not an absolute real path`);
  }
  const dir = dirname(module.path);
  const problem = moduleDirProblem(dir, context);
  if (problem !== undefined) throw new RangeError(problem);
  if (!context.set.readPaths.includes(dir)) {
    throw new RangeError(`The scope of the module-tool child does not make ${dir} readable`);
  }
  return [
    "--no-config",
    "--no-lock",
    "--node-modules-dir=none",
    `--import-map=${toolsDir}/deno.json`,
  ];
}

/**
 * The arguments after a tool child's entry that name its library tool.
 *
 * @param module the library tool, if the child serves one
 * @returns `--module=<path>` and `--tool=<name>`, or nothing
 */
export function moduleChildArgs(module: ModuleChild | undefined): string[] {
  return module === undefined ? [] : [`--module=${module.path}`, `--tool=${module.tool}`];
}

/** The scope of a call with the module's directory added to its read paths. */
export function withModuleDir(set: PermissionSet, module: ModuleChild): PermissionSet {
  const dir = dirname(module.path);
  return set.readPaths.includes(dir) ? set : { ...set, readPaths: [...set.readPaths, dir].sort() };
}

/** `child` is `parent` or lies inside it. */
function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
