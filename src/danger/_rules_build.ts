/**
 * Package managers and build tools. Building, testing and running project scripts is
 * `code_execution` (contained: no network, workspace writable); installing is `network` +
 * `code_execution` (install scripts run) + `local_write`; a global install adds `system_write`.
 *
 * @module
 */
import {
  BUILD_TOOLS,
  BUNDLE,
  CARGO,
  COMPOSER,
  DENO,
  GEM,
  GO,
  type Kind,
  LOCAL_TOOLS,
  NODE_PM,
  PIP,
  POETRY,
  UV,
} from "./_build_tables.ts";
import { has, parseOptions, type Rule, type RuleInput } from "./_rule.ts";
import { urlHosts } from "./_rules_exec.ts";

const INSTALL = "installs packages from the network";

function install(input: RuleInput, global: boolean): void {
  input.parts.network("", INSTALL);
  input.parts.add("code_execution", "runs the packages' install scripts");
  input.parts.add("local_write", "writes the project's dependencies");
  if (global) input.parts.add("system_write", "installs outside the workspace (global install)");
}

/** Options naming the directory a package manager works in or installs into. */
const DIR_OPTIONS = ["-C", "--prefix", "--dir", "--cwd", "--target", "-t", "--root", "--path"];
/** Installs that always land outside the project (`~/.cargo/bin`, gems, pipx venvs). */
const GLOBAL_INSTALLS = new Set(["cargo install", "gem install", "pipx install", "go install"]);
const MANAGER_VALUED =
  "-w --workspace --filter --manifest-path -p --package --features -F --config " +
  "-r --requirement -e --editable";

function classifyTable(table: Record<string, Kind>, fallback: Kind): Rule {
  return (input) => {
    const options = parseOptions(input.args, [...DIR_OPTIONS, ...MANAGER_VALUED.split(" ")]);
    const sub = options.operands[0];
    const kind: Kind = sub === undefined
      ? (input.args.some((a) => /^(-v|--version|-h|--help|-V)$/.test(a)) ? "read" : fallback)
      : table[sub] ?? fallback;
    apply(input, kind, sub ?? "", options.flags);
    if (kind === "install" || kind === "write" || kind === "exec") {
      for (const dir of DIR_OPTIONS.flatMap((o) => options.values.get(o) ?? [])) {
        input.parts.write(dir);
      }
    }
  };
}

function apply(input: RuleInput, kind: Kind, sub: string, flags: Set<string>): void {
  const { parts } = input;
  const global = flags.has("-g") || flags.has("--global") || flags.has("--user") ||
    flags.has("--break-system-packages") || flags.has("--system") ||
    GLOBAL_INSTALLS.has(`${input.verb} ${sub}`);
  switch (kind) {
    case "read":
      return parts.add("read", "reads project information");
    case "install":
      return install(input, global);
    case "exec":
      return parts.add("code_execution", `runs ${sub === "" ? "the project" : sub}`);
    case "write":
      return parts.add("local_write", "writes in the workspace");
    case "net":
      return parts.network("", `${sub} talks to the package registry`);
    case "fetch":
      parts.network("", `${sub} downloads and runs a package`);
      return parts.add("code_execution", `${sub} runs a downloaded package`);
    case "config":
      return parts.add("system_write", "changes user-wide configuration");
    default:
      return parts.add("unknown", `"${input.verb} ${sub}" is not a recognised subcommand`);
  }
}

/** `go get`/`go install pkg@v`/`go mod download` fetch; the rest builds (odek-go §5.1). */
function go(input: RuleInput): void {
  const [sub, ...rest] = input.args;
  if (sub === "install" && rest.some((a) => a.includes("@"))) return install(input, true);
  if (sub === "mod" && rest[0] === "download") return install(input, false);
  if (sub === "run" && rest.some((a) => a.includes("@"))) {
    return apply(input, "fetch", "go run", new Set());
  }
  classifyTable(GO, "unknown")(input);
}

function npx(input: RuleInput): void {
  const options = parseOptions(input.args, ["-p", "--package", "-c", "--call"], true);
  const tool = options.operands[0] ?? "";
  if (
    has(options, "--no-install", "--offline", "--no") ||
    LOCAL_TOOLS.has(tool.replace(/@[^/]*$/, ""))
  ) {
    input.parts.add("code_execution", `runs the project's ${tool || "tools"}`);
  } else apply(input, "fetch", tool || input.verb, new Set());
}

/** `npm exec`/`npm x` behave like `npx`; `npm init` with an initializer downloads it. */
function npm(input: RuleInput): void {
  const options = parseOptions(input.args, ["-w", "--workspace", "-C", "--prefix"], true);
  const [sub, ...rest] = options.operands;
  if (sub === "exec" || sub === "x") return npx({ ...input, args: rest });
  if ((sub === "init" || sub === "create") && rest.filter((a) => !a.startsWith("-")).length === 0) {
    return input.parts.write("package.json");
  }
  classifyTable(NODE_PM, "unknown")(input);
}

/** yarn, pnpm and bun run a project script when the subcommand is not one of theirs. */
function scriptRunner(table: Record<string, Kind>): Rule {
  return (input) => {
    const options = parseOptions(input.args, [
      "-C",
      "--dir",
      "--cwd",
      "-w",
      "--filter",
      "--workspace",
    ]);
    if (options.operands.length === 0 && input.verb === "yarn" && input.args.length === 0) {
      return install(input, false);
    }
    classifyTable(table, "exec")(input);
    if (input.verb === "bun" && options.operands[0] && urlHosts(options.operands[0]).length > 0) {
      input.parts.network(urlHosts(options.operands[0])[0]);
    }
  };
}

function denoRule(input: RuleInput): void {
  const operands = input.args.filter((a) => !a.startsWith("-"));
  if (operands[0] === "task" && operands[1] === "odek") {
    return input.parts.add(
      "system_write",
      "odek invoking itself can change its own configuration and sessions",
    );
  }
  classifyTable(DENO, "unknown")(input);
  for (const host of input.args.flatMap(urlHosts)) input.parts.network(host);
}

/** Add the build family to `rules`. */
export function addBuildRules(rules: Map<string, Rule>): void {
  rules.set("npm", npm);
  rules.set("pnpm", scriptRunner(NODE_PM));
  rules.set("yarn", scriptRunner(NODE_PM));
  rules.set("bun", scriptRunner(NODE_PM));
  for (const verb of ["npx", "bunx", "pnpx"]) rules.set(verb, npx);
  for (const verb of ["pip", "pip3", "pipx"]) rules.set(verb, classifyTable(PIP, "unknown"));
  rules.set("cargo", classifyTable(CARGO, "exec"));
  rules.set("go", go);
  rules.set("deno", denoRule);
  rules.set("uv", classifyTable(UV, "unknown"));
  rules.set("uvx", (input) => apply(input, "fetch", "uvx", new Set()));
  rules.set("poetry", classifyTable(POETRY, "unknown"));
  rules.set("pipenv", classifyTable({ ...POETRY, sync: "install" }, "unknown"));
  rules.set("bundle", classifyTable(BUNDLE, "unknown"));
  rules.set("gem", classifyTable(GEM, "unknown"));
  rules.set("composer", classifyTable(COMPOSER, "exec"));
  for (const verb of BUILD_TOOLS) {
    rules.set(verb, (input) => input.parts.add("code_execution", `runs ${input.verb}`));
  }
}
