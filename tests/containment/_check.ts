/**
 * The containment check every attempt gets: nothing changed outside the scope's write paths, no
 * canary outside the scope's paths appears in the output, no listener saw anything (test helper).
 *
 * @module
 */
import assert from "node:assert/strict";
import { isAbsolute, relative } from "node:path";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import type { ContainmentFixture } from "./_fixture.ts";
import { protectedReason } from "../../tools/_catalogue/protected_paths.ts";

/** What one attempt did, as the check sees it. */
export interface AttemptOutcome {
  /** The tool result (a refusal before anything ran counts as a result too). */
  result: ToolResult;
  /** The scope it ran with (`null`: refused before anything ran). */
  scope: PermissionSet | null;
  before: Map<string, string>;
  after: Map<string, string>;
  hitsBefore: { tcp: number; unix: number; udp: number };
}

/** True when `path` is `parent` or lies inside it. */
export function isWithin(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith("../"));
}

/**
 * Assert containment for one attempt.
 *
 * @throws AssertionError naming the changed path, the leaked canary or the listener
 */
export function assertContained(f: ContainmentFixture, name: string, o: AttemptOutcome): void {
  const text = o.result.ok ? o.result.output : o.result.error.message;
  const writable = o.scope?.writePaths ?? [];
  const visible = [...(o.scope?.readPaths ?? []), ...writable];
  const paths = new Set([...o.before.keys(), ...o.after.keys()]);
  for (const path of paths) {
    if (o.before.get(path) === o.after.get(path)) continue;
    // A directory's own entry changes when something inside it is created: judge the file.
    const allowed = writable.some((w) => isWithin(w, path)) ||
      (o.before.get(path)?.startsWith("dir ") && o.after.get(path)?.startsWith("dir ") &&
        writable.some((w) => isWithin(path, w)));
    assert.ok(
      allowed,
      `${name}: ${path} changed outside the scope (writable: ${JSON.stringify(writable)})\n` +
        `before: ${o.before.get(path)}\nafter: ${o.after.get(path)}\noutput: ${text}`,
    );
  }
  for (const canary of f.canaries) {
    const inScope = canary.path !== null && visible.some((p) => isWithin(p, canary.path!));
    if (inScope) continue;
    assert.ok(
      !text.includes(canary.value),
      `${name}: the secret of ${canary.path ?? "the core's environment"} leaked:\n${text}`,
    );
  }
  assertProtectedKept(f, name, o, text);
  assertNoPlaceholders(f, name, o, text);
  const hits = f.hits();
  assert.deepEqual(
    hits,
    o.hitsBefore,
    `${name}: a host listener was reached (before ${JSON.stringify(o.hitsBefore)}, after ${
      JSON.stringify(hits)
    }):\n${text}`,
  );
}

/** A snapshot entry's kind and content, without its mode, mtime and inode. */
function contentOf(entry: string | undefined): string | undefined {
  if (entry === undefined) return undefined;
  if (entry.startsWith("dir ")) return "dir";
  // `file <content> <mode> <mtime> <ino>` / `link <target> <mode> <mtime> <ino>`.
  const parts = entry.split(" ");
  return parts.slice(0, -2).join(" ");
}

/**
 * Files the host runs later (hooks, `.git/config`, `.envrc` …) are as they were after every
 * attempt, whatever its scope (the read-only binds and the revert after the call), unless the
 * scope granted that very path (an approved write that named it).
 */
function assertProtectedKept(
  f: ContainmentFixture,
  name: string,
  o: AttemptOutcome,
  text: string,
): void {
  const granted = (o.scope?.writePaths ?? []).filter((p) => p !== f.ws);
  const paths = new Set([...o.before.keys(), ...o.after.keys()]);
  for (const path of paths) {
    if (!isWithin(f.ws, path) || path === f.ws) continue;
    const rel = relative(f.ws, path);
    if (protectedReason(rel) === undefined) continue;
    if (granted.some((g) => isWithin(g, path))) continue;
    const before = contentOf(o.before.get(path));
    const after = contentOf(o.after.get(path));
    assert.equal(
      after,
      before,
      `${name}: the protected ${rel} changed (before: ${before}, after: ${after})\noutput: ${text}`,
    );
  }
}

/**
 * No attempt leaves an empty file or directory in the workspace that was not there before and
 * that the attempt did not make itself (bwrap leaves such placeholders where it mounts over a
 * missing path). Attempts that create empty entries on purpose name them in `expectEmpty`.
 */
function assertNoPlaceholders(
  f: ContainmentFixture,
  name: string,
  o: AttemptOutcome,
  text: string,
): void {
  for (const [path, entry] of o.after) {
    if (o.before.has(path) || !isWithin(f.ws, path)) continue;
    const emptyFile = entry.startsWith("file  ");
    const emptyDir = entry.startsWith("dir ") &&
      ![...o.after.keys()].some((p) => p !== path && isWithin(path, p));
    if (!emptyFile && !emptyDir) continue;
    // A program in a writable workspace may make empty entries itself; a mount destination,
    // a protected name, or anything in a read-only workspace can only be a placeholder.
    const writable = (o.scope?.writePaths ?? []).includes(f.ws);
    const destinations = [
      ...(o.scope?.readPaths ?? []),
      ...(o.scope?.writePaths ?? []),
      ...(o.scope?.readOnlyPaths ?? []),
    ];
    const mounted = destinations.includes(path) ||
      protectedReason(relative(f.ws, path)) !== undefined;
    if (writable && !mounted) continue;
    assert.fail(`${name}: an empty placeholder ${path} was left in the workspace\noutput: ${text}`);
  }
}
