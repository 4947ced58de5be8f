/**
 * The class → scope table of design §3, as a pure function.
 *
 * @module
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { RiskClass, TrustLevel, Verdict } from "../danger/verdict.ts";
import type { NetworkPolicy, PermissionSet } from "./permission_set.ts";
import type { ToolInvocation } from "./tool_broker.ts";

/** Where a call runs: the inputs of {@linkcode derivePermissions} besides the verdict. */
export interface DerivePermissionsContext {
  /** The workspace, absolute and already realpathed. */
  workspace: string;
  /** Absolute paths no scope may ever name, contain or enter (ODEK_HOME, the install dir). */
  protectedRoots: string[];
  /**
   * Directories the operator granted (`--add-dir`), realpathed: always readable; a writable one
   * is writable exactly when the workspace is. @default []
   */
  addDirs?: readonly { path: string; readOnly: boolean }[];
  /**
   * The workspace's protected files that exist (`WorkspaceGuard`: hooks, `.git/config`, `.envrc`
   * …): read-only in a writable workspace, except those an approved `system_write` or
   * `destructive` part names (or holds, or lies inside). @default []
   */
  protectedPaths?: readonly string[];
}

/**
 * Derive the scope one call runs with: the union of the scopes its verdict's parts grant.
 *
 * | class | adds to the base scope (the workspace and the added directories readable) |
 * | --- | --- |
 * | `read`, `unknown`, `privileged`, `blocked` | nothing |
 * | `local_write`, `code_execution` | the workspace and the writable added directories writable |
 * | `network` | `{ type: "proxy", allowDomains: [] }` (egress through the core's proxy) |
 * | `system_write`, `destructive` | exactly the part's targets writable |
 *
 * In a writable workspace the existing protected files (`context.protectedPaths`) stay
 * read-only (`readOnlyPaths`) unless an approved target names them.
 *
 * Targets are resolved against the workspace when relative; a target that is a protected root,
 * lies inside one, or contains one (`/`, `~` when ODEK_HOME is `~/.odek`) is dropped, so that
 * part's write then fails inside the sandbox; so is one in `/proc`, `/sys` or `/dev` (a bind of
 * `/proc/<pid>/root` would be the host's root). The comparison is lexical: the broker realpaths
 * targets first (`_real_targets.ts`). `untrusted` trust gets the base scope whatever the verdict.
 *
 * The function never refuses: a verdict with a `blocked` part or a `deny` decision yields the
 * read-only base scope (whatever its other parts), and the caller must refuse to run the call.
 * `runBinaries` and `envNames` are always empty.
 *
 * @param _invocation the call; unused today (the scope depends on the verdict alone), accepted
 *   so per-tool scopes can be added without changing callers
 * @param verdict the classifier's verdict on the call
 * @param trustLevel the run's trust level
 * @param context the workspace and the protected roots
 * @returns the permission set; paths sorted and without duplicates
 *
 * @example A local write makes the workspace writable
 * ```ts
 * import { derivePermissions } from "./derive_permissions.ts";
 * const set = derivePermissions(
 *   { id: "c1", name: "write_file", args: { path: "a.txt", content: "" } },
 *   { parts: [{ riskClass: "local_write", subject: "write_file", targets: ["a.txt"] }], decision: "allow", reason: "" },
 *   "standard",
 *   { workspace: "/srv/ws", protectedRoots: ["/opt/odek"] },
 * );
 * if (set.writePaths[0] !== "/srv/ws") throw new Error("workspace not writable");
 * ```
 */
export function derivePermissions(
  _invocation: ToolInvocation,
  verdict: Verdict,
  trustLevel: TrustLevel,
  context: DerivePermissionsContext,
): PermissionSet {
  const { workspace, protectedRoots } = context;
  const addDirs = context.addDirs ?? [];
  const writePaths = new Set<string>();
  let network: NetworkPolicy = { type: "none" };
  const refused = verdict.decision === "deny" ||
    verdict.parts.some((p) => p.riskClass === "blocked");
  if (trustLevel !== "untrusted" && !refused) {
    for (const part of verdict.parts) {
      const scope = partScope(part.riskClass);
      if (scope === "workspace_writable") {
        writePaths.add(workspace);
        for (const dir of addDirs) if (!dir.readOnly) writePaths.add(dir.path);
      }
      if (scope === "network") network = { type: "proxy", allowDomains: [] };
      if (scope === "targets_writable") {
        for (const target of part.targets) {
          const path = resolve(workspace, target);
          const forbidden = protectedRoots.some((root) => overlaps(root, path)) ||
            PSEUDO_FILESYSTEMS.some((root) => isWithin(root, path));
          if (!forbidden) writePaths.add(path);
        }
      }
    }
  }
  const granted = [...writePaths].filter((path) => path !== workspace);
  const readOnly = writePaths.has(workspace)
    ? (context.protectedPaths ?? []).filter((path) =>
      isWithin(workspace, path) && !granted.some((target) => overlaps(target, path))
    )
    : [];
  return {
    readPaths: [...new Set([workspace, ...addDirs.map((dir) => dir.path)])].sort(),
    writePaths: [...writePaths].sort(),
    network,
    runBinaries: [],
    envNames: [],
    ...(readOnly.length > 0 ? { readOnlyPaths: [...new Set(readOnly)].sort() } : {}),
  };
}

/**
 * Kernel file systems no target may be granted in: a bind of `/proc/<pid>/root` is the host's
 * root, `/proc/<pid>/environ` another process's secrets, `/sys` and `/dev` the kernel's knobs.
 */
const PSEUDO_FILESYSTEMS = ["/proc", "/sys", "/dev"];

type PartScope = "base" | "workspace_writable" | "network" | "targets_writable";

function partScope(riskClass: RiskClass): PartScope {
  switch (riskClass) {
    case "read":
    case "unknown":
    case "privileged":
    case "blocked":
      return "base";
    case "local_write":
    case "code_execution":
      return "workspace_writable";
    case "network":
      return "network";
    case "system_write":
    case "destructive":
      return "targets_writable";
    default: {
      const unreachable: never = riskClass;
      throw new TypeError(`Unknown risk class: ${unreachable}`);
    }
  }
}

/** True when `a` and `b` are the same path or one lies inside the other. */
function overlaps(a: string, b: string): boolean {
  return isWithin(a, b) || isWithin(b, a);
}

function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
