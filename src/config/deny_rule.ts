/**
 * Deny rules as configuration holds them (docs/configuration.md#deny-rules): the schema of the
 * `deny` key and the rule with the layer it came from, which the classifier matches.
 *
 * @module
 */
import picomatch from "picomatch";
import { z } from "zod";

/**
 * What a deny rule matches.
 *
 * @example The kinds
 * ```ts
 * import type { DenyRuleKind } from "./deny_rule.ts";
 * const kind: DenyRuleKind = "command";
 * if (kind !== "command") throw new Error("kind");
 * ```
 */
export type DenyRuleKind = "command" | "path" | "domain";

/**
 * One deny rule and where it came from, as the classifier receives it (`ClassifyContext.denyRules`)
 * and `odek classify` prints it; a host lists its rules in `host.denyRules`, and a part a rule
 * blocked carries it in `VerdictPart.denyRule`.
 *
 * @example A project rule against pushing
 * ```ts
 * import type { DenyRule } from "./deny_rule.ts";
 * const rule: DenyRule = { kind: "command", pattern: "git push *", layer: "project", source: "/w/odek.jsonc" };
 * if (rule.layer !== "project") throw new Error("layer");
 * ```
 */
export interface DenyRule {
  /** What it matches: a command (argv prefix), a path (glob) or a domain. */
  kind: DenyRuleKind;
  /** As written: `git push *`, `secrets/**`, `*.example.com`. */
  pattern: string;
  /**
   * The layer that set it: `user` (ODEK_HOME/config.jsonc), `project` (the workspace's
   * odek.jsonc) or `flags` (the runtime's `config` option).
   */
  layer: "user" | "project" | "flags";
  /** The file it was read from. */
  source: string;
  /** Why a rule odek made itself exists (e.g. an empty `network.allowDomains` intersection). */
  note?: string;
}

const COMMAND = z.string().min(1).max(1000).refine(
  (pattern) => {
    const tokens = pattern.trim().split(/\s+/);
    return pattern.trim() !== "" && tokens[0] !== "*";
  },
  'a command pattern: words of the command line, "*" for any argument, e.g. "git push *" (it cannot start with "*")',
);

const PATH = z.string().min(1).max(4096).refine(
  (pattern) => {
    try {
      picomatch.makeRe(pattern.replace(/^~\//, "/"), { dot: true });
      return true;
    } catch {
      return false;
    }
  },
  'a glob such as "secrets/**" (relative to the workspace), "/etc/**" or "~/.config/**"',
);

const DOMAIN = z.string().min(1).max(253).regex(
  /^(\*|(\*\.)?[A-Za-z0-9._:-]+)$/,
  'a host name, "*.example.com" (it and every name below it), an IP address, or "*" (every host)',
);

/** The `deny` key of a configuration layer. */
export const DenyRulesSchema: z.ZodType<DenyRules> = z.strictObject({
  /** Command patterns: argv prefixes with `*` tokens, e.g. `git push *`. */
  commands: z.array(COMMAND).max(500).optional(),
  /** picomatch globs of paths no call may read or write. */
  paths: z.array(PATH).max(500).optional(),
  /** Hosts no call may reach. */
  domains: z.array(DOMAIN).max(1000).optional(),
});

/** The `deny` key of one layer. */
export interface DenyRules {
  commands?: string[];
  paths?: string[];
  domains?: string[];
}

/**
 * The rules of one layer's `deny` key, tagged with the layer and file.
 *
 * @param deny the layer's `deny` value (validated)
 * @param layer `user` or `project`
 * @param source the file it was read from
 * @returns one rule per pattern, commands first, then paths, then domains
 *
 * @example
 * ```ts
 * import { denyRulesOf } from "./deny_rule.ts";
 * const rules = denyRulesOf({ commands: ["git push *"] }, "project", "/w/odek.jsonc");
 * if (rules[0].kind !== "command" || rules[0].layer !== "project") throw new Error();
 * ```
 */
export function denyRulesOf(
  deny: DenyRules | undefined,
  layer: DenyRule["layer"],
  source: string,
): DenyRule[] {
  if (!deny) return [];
  const of = (kind: DenyRuleKind, patterns: string[] | undefined) =>
    (patterns ?? []).map((pattern) => ({ kind, pattern: pattern.trim(), layer, source }));
  return [
    ...of("command", deny.commands),
    ...of("path", deny.paths),
    ...of("domain", deny.domains),
  ];
}

/**
 * How a rule is named to the operator and the model: `the deny rule "git push *" of the project
 * layer (/w/odek.jsonc)`.
 *
 * @param rule the rule
 * @returns one phrase
 *
 * @example
 * ```ts
 * import { describeDenyRule } from "./deny_rule.ts";
 * const text = describeDenyRule({ kind: "path", pattern: "secrets/**", layer: "user", source: "/h/.odek/config.jsonc" });
 * if (!text.includes('"secrets/**"') || !text.includes("user layer")) throw new Error(text);
 * ```
 */
export function describeDenyRule(rule: DenyRule): string {
  return `the deny rule "${rule.pattern}" of the ${rule.layer} layer (${rule.source}${
    rule.note ? `: ${rule.note}` : ""
  })`;
}
