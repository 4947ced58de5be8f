/**
 * The checks of `runtime.openSession()`'s arguments, at the edge (design §8): each wrong one is a
 * `TypeError` or `RangeError` naming it, before anything is built.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { TrustLevelSchema } from "../config/trust_level.ts";
import {
  checkBoolean,
  checkFunction,
  checkMethods,
  checkObject,
  checkString,
  checkStrings,
} from "./check_option.ts";
import { checkToolProviderSources } from "./tool_provider_source.ts";
import type { OpenSessionOptions, SessionTarget } from "./open_session_host.ts";

/**
 * Check `openSession`'s arguments.
 *
 * @throws {TypeError} / {@linkcode RangeError} naming the option
 */
export function checkOpenSession(
  target: SessionTarget,
  options: OpenSessionOptions,
  cwd: string | undefined,
): void {
  checkObject("target", target);
  checkString("target.task", target.task, { nonEmpty: true });
  checkString("target.sessionId", target.sessionId, { nonEmpty: true });
  if (target.task === undefined && target.sessionId === undefined) {
    throw new TypeError("target needs a task (a new session) or a sessionId (an existing one)");
  }
  checkObject("options", options);
  for (const key of ["workspace", "record", "replay"] as const) {
    checkString(key, options[key], { nonEmpty: true });
    const value = options[key];
    if (value !== undefined && !isAbsolute(value) && cwd === undefined) {
      throw new RangeError(
        `${key} must be an absolute path (the runtime has no cwd), got ${JSON.stringify(value)}`,
      );
    }
  }
  checkBoolean("dedicatedWorkspace", options.dedicatedWorkspace);
  checkStrings("addDirs", options.addDirs);
  for (const [index, spec] of (options.addDirs ?? []).entries()) {
    if (!isAbsolute(spec) && cwd === undefined) {
      throw new RangeError(
        `addDirs[${index}] must be an absolute path (the runtime has no cwd), got ${
          JSON.stringify(spec)
        }`,
      );
    }
  }
  if (options.trust !== undefined && !TrustLevelSchema.safeParse(options.trust).success) {
    throw new RangeError(
      `trust must be "untrusted", "standard" or "trusted", got ${JSON.stringify(options.trust)}`,
    );
  }
  checkMethods("approver", options.approver, ["decide"]);
  checkBoolean("reaskApprovals", options.reaskApprovals);
  checkMethods("clarifier", options.clarifier, ["ask"]);
  checkString("model", options.model, { nonEmpty: true });
  checkString("baseUrl", options.baseUrl);
  if (options.baseUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(options.baseUrl)) {
    throw new RangeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  checkString("system", options.system);
  checkToolProviderSources("tools", options.tools);
  checkFunction("askProjectMcpServer", options.askProjectMcpServer);
}
