/**
 * Deny rules (docs/configuration.md#deny-rules) against what the classifier sees: every simple
 * command's evaluated argv (after wrappers are stripped: `sudo`, `env`, `xargs`, `bash -c`, …),
 * every path a command or tool names, and every network part's host. Pure: nothing is read from
 * disk.
 *
 * @module
 */
import { posix } from "node:path";
import picomatch from "picomatch";
import { type DenyRule, describeDenyRule } from "../config/deny_rule.ts";
import { matchDenyDomain } from "../_util/match_deny_domain.ts";
import { DYNAMIC } from "./_types.ts";
import type { VerdictPart } from "./verdict.ts";

/**
 * Options that take a value, per command, before the subcommand (`git -C dir push`): skipped so
 * `git push *` still matches.
 */
const VALUED_GLOBAL_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  git: ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"],
  docker: ["-c", "--context", "-H", "--host", "--config", "-l", "--log-level"],
  kubectl: ["-n", "--namespace", "--context", "--kubeconfig", "-s", "--server", "--cluster"],
  npm: ["--prefix", "-w", "--workspace"],
  cargo: ["-C", "--config", "--color", "-Z"],
  gh: ["-R", "--repo"],
};

interface PathRule {
  rule: DenyRule;
  absolute: boolean;
  matches: (path: string) => boolean;
}

/**
 * A set of deny rules compiled for one workspace and home.
 *
 * @example A command, a path and a host
 * ```ts
 * import { DenyRuleMatcher } from "./match_deny_rules.ts";
 * const at = { layer: "project" as const, source: "/w/odek.jsonc" };
 * const matcher = new DenyRuleMatcher([
 *   { kind: "command", pattern: "git push *", ...at },
 *   { kind: "path", pattern: "secrets/**", ...at },
 *   { kind: "domain", pattern: "*.example.com", ...at },
 * ], { workspace: "/w", home: "/h" });
 * if (!matcher.command(["/usr/bin/git", "-C", "/w", "push", "origin"])) throw new Error("command");
 * if (matcher.command(["git", "status"])) throw new Error("over-matched");
 * if (!matcher.path("/w/secrets/a.pem")) throw new Error("path");
 * if (!matcher.domain("api.example.com")) throw new Error("domain");
 * ```
 */
export class DenyRuleMatcher {
  /** Whether there is any rule at all. */
  readonly empty: boolean;
  readonly #commands: { rule: DenyRule; name: string; tokens: string[] }[];
  readonly #paths: PathRule[];
  readonly #domains: DenyRule[];
  readonly #workspace: string;

  /**
   * @param rules the context's deny rules
   * @param where the workspace (relative path patterns are relative to it) and the home (`~/`)
   */
  constructor(rules: readonly DenyRule[], where: { workspace: string; home: string }) {
    this.empty = rules.length === 0;
    this.#workspace = posix.normalize(where.workspace);
    this.#commands = rules.filter((r) => r.kind === "command").map((rule) => {
      const [name, ...tokens] = rule.pattern.trim().split(/\s+/);
      return { rule, name, tokens };
    });
    this.#paths = rules.filter((r) => r.kind === "path").map((rule) => {
      const pattern = rule.pattern.startsWith("~/")
        ? posix.join(where.home, rule.pattern.slice(2))
        : rule.pattern.replace(/^\.\//, "");
      const absolute = pattern.startsWith("/");
      const glob = absolute && pattern.length > 1 ? pattern.replace(/\/$/, "") : pattern;
      return { rule, absolute, matches: picomatch(glob, { dot: true }) };
    });
    this.#domains = rules.filter((r) => r.kind === "domain");
  }

  /**
   * The first command rule whose pattern matches `argv`. A pattern is words: the first is the
   * command (compared with the argv's basename, or the whole path when it holds a `/`); each next
   * word must match the next argument (`*` any one argument, a word with `*` a glob of one
   * argument); a final `*` also matches no argument, so `git push *` denies `git push` too. The
   * pattern is a prefix: later arguments are free. Options between the command and the pattern's
   * first non-option word are skipped (`git -C dir push` matches `git push *`). An argument known
   * only at run time (`$REMOTE`) is assumed to match; a command name known only at run time
   * matches nothing (such a command is `unknown` and asks).
   *
   * @param argv the evaluated argv of one simple command
   * @returns the rule, or `undefined`
   */
  command(argv: readonly string[]): DenyRule | undefined {
    if (argv.length === 0 || argv[0].includes(DYNAMIC)) return undefined;
    for (const { rule, name, tokens } of this.#commands) {
      const verb = name.includes("/") ? posix.normalize(argv[0]) : posix.basename(argv[0]);
      if (verb !== name) continue;
      const args = argv.slice(1);
      if (matchTokens(tokens, args)) return rule;
      if (tokens.length > 0 && !tokens[0].startsWith("-")) {
        const rest = skipOptions(args, VALUED_GLOBAL_OPTIONS[posix.basename(name)] ?? []);
        if (rest.length !== args.length && matchTokens(tokens, rest)) return rule;
      }
    }
    return undefined;
  }

  /**
   * The first path rule that denies `path` or an ancestor of it: a pattern starting with `/` is
   * matched against the absolute path, `~/…` against the home, any other against the path
   * relative to the workspace (a path outside it matches only absolute patterns). So `secrets`
   * and `secrets/**` both deny `secrets/key.pem`. Globs are picomatch's, dotfiles included.
   *
   * @param path an absolute, normalised path
   * @returns the rule, or `undefined`
   */
  path(path: string): DenyRule | undefined {
    if (this.#paths.length === 0 || !path.startsWith("/")) return undefined;
    const ancestors: string[] = [];
    for (let p = posix.normalize(path);; p = posix.dirname(p)) {
      ancestors.push(p);
      if (p === "/") break;
    }
    const ws = this.#workspace;
    const relative = ancestors
      .filter((p) => p !== ws && p.startsWith(ws === "/" ? "/" : `${ws}/`))
      .map((p) => p.slice(ws === "/" ? 1 : ws.length + 1));
    return this.#paths.find(({ absolute, matches }) =>
      (absolute ? ancestors : relative).some((candidate) => matches(candidate))
    )?.rule;
  }

  /**
   * The first domain rule that denies `host` (see `matchDenyDomain`: `*` denies every host,
   * an unknown one included; `*.example.com` it and every name below; else exactly that host).
   *
   * @param host the host, `""` when unknown
   * @returns the rule, or `undefined`
   */
  domain(host: string): DenyRule | undefined {
    const pattern = matchDenyDomain(host, this.#domains.map((r) => r.pattern));
    return pattern === undefined ? undefined : this.#domains.find((r) => r.pattern === pattern);
  }

  /**
   * Add a `blocked` part for every target a rule names: a network part's host against the domain
   * rules, any other part's absolute targets against the path rules. A blocked part is never
   * allowed, asked or approved, whatever the trust level or `--yes`.
   *
   * @param parts the classifier's parts
   * @returns the parts followed by one blocked part per denied target
   */
  apply(parts: readonly VerdictPart[]): VerdictPart[] {
    if (this.empty) return [...parts];
    const out = [...parts];
    for (const part of parts) {
      if (part.riskClass === "blocked") continue;
      if (part.riskClass === "network") {
        for (const host of part.targets.length > 0 ? part.targets : [""]) {
          const rule = this.domain(host);
          if (rule) out.push(denyPart(part.subject, rule, host === "" ? [] : [host]));
        }
        continue;
      }
      for (const target of part.targets) {
        const rule = this.path(target);
        if (rule) out.push(denyPart(part.subject, rule, [target]));
      }
    }
    return out;
  }
}

/**
 * The part a deny rule adds: `blocked`, with the rule named in its detail and attached.
 *
 * @param subject the sub-command or operation
 * @param rule the rule that denies it
 * @param targets what it names
 * @returns the part
 */
export function denyPart(subject: string, rule: DenyRule, targets: string[]): VerdictPart {
  return {
    riskClass: "blocked",
    subject,
    targets,
    detail: `denied by ${describeDenyRule(rule)}`,
    denyRule: rule,
  };
}

function matchTokens(tokens: readonly string[], args: readonly string[]): boolean {
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === "*" && i === tokens.length - 1) return true;
    const arg = args[i];
    if (arg === undefined) return false;
    if (token === "*" || arg.includes(DYNAMIC)) continue;
    if (token.includes("*") ? !picomatch.isMatch(arg, token, { dot: true }) : arg !== token) {
      return false;
    }
  }
  return true;
}

function skipOptions(args: readonly string[], valued: readonly string[]): readonly string[] {
  let i = 0;
  while (i < args.length && args[i].startsWith("-")) {
    if (args[i] === "--") return args.slice(i + 1);
    if (valued.includes(args[i])) i++;
    i++;
  }
  return args.slice(i);
}
