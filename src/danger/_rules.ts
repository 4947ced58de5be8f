/**
 * The rule table: verb → rule, assembled from the rule families.
 *
 * @module
 */
import type { Rule } from "./_rule.ts";
import { addBuildRules } from "./_rules_build.ts";
import { addExecRules } from "./_rules_exec.ts";
import { addFileRules } from "./_rules_files.ts";
import { addGitRules } from "./_rules_git.ts";
import { addNetworkRules } from "./_rules_net.ts";
import { addReadRules } from "./_rules_read.ts";
import { addSystemRules } from "./_rules_system.ts";
import { addWrapperRules } from "./_rules_wrappers.ts";

function buildRules(): ReadonlyMap<string, Rule> {
  const rules = new Map<string, Rule>();
  addReadRules(rules);
  addBuildRules(rules);
  addFileRules(rules);
  addExecRules(rules);
  addNetworkRules(rules);
  addGitRules(rules);
  addSystemRules(rules);
  addWrapperRules(rules);
  return rules;
}

/** Every recognised verb. Later families override earlier ones (a wrapper beats a reader). */
export const RULES: ReadonlyMap<string, Rule> = buildRules();
