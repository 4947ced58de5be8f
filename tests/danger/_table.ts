/**
 * The table format of the classifier tests and the context every row runs in. A row is
 * `[command, classes, targets?]`: `classes` is the exact set of risk classes of the parts
 * (space-separated, order free, "" for no parts); `targets` lists `class=target` pairs that
 * must appear among the parts (space-separated).
 *
 * The strings are data: they are parsed by the classifier and never run.
 */
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import type { VerdictPart } from "../../src/danger/verdict.ts";

/** One table row. */
export type Row = readonly [command: string, classes: string, targets?: string];

/** The context of every table row. */
export const CONTEXT: ClassifyContext = {
  workspace: "/home/ada/proj",
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek", "/opt/odek"],
  trustLevel: "standard",
  scratchDir: "/tmp/odek-1000/host-abc/tmp",
};

/** Why `parts` do not match `row`, or null when they do. */
export function mismatch(row: Row, parts: VerdictPart[]): string | null {
  const [, classes, targets] = row;
  const got = [...new Set(parts.map((p) => p.riskClass))].sort().join(" ");
  const want = [...new Set(classes.split(/\s+/).filter((c) => c !== ""))].sort().join(" ");
  const missing = (targets ?? "").split(/\s+/).filter((t) => t !== "").filter((pair) => {
    const eq = pair.indexOf("=");
    const [cls, target] = [pair.slice(0, eq), pair.slice(eq + 1)];
    return !parts.some((p) => p.riskClass === cls && p.targets.includes(target));
  });
  if (got === want && missing.length === 0) return null;
  const shown = parts.map((p) => `${p.riskClass}[${p.targets.join(",")}] ${p.detail ?? ""}`);
  return `classes: got "${got}", want "${want}"` +
    (missing.length > 0 ? `; missing targets ${missing.join(" ")}` : "") +
    `\n  parts:\n    ${shown.join("\n    ")}`;
}
