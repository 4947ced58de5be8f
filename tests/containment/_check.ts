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
  const hits = f.hits();
  assert.deepEqual(
    hits,
    o.hitsBefore,
    `${name}: a host listener was reached (before ${JSON.stringify(o.hitsBefore)}, after ${
      JSON.stringify(hits)
    }):\n${text}`,
  );
}
