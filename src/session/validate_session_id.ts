/**
 * Session id rules.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";

/** A session id: a letter or digit, then up to 63 letters, digits, `.`, `_` or `-`. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Check a session id or name. Valid ids match `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, so they can
 * never hold a path separator and never be `.` or `..` (the first character is alphanumeric).
 *
 * @param id the id to check, e.g. from `--session <name>`
 * @returns the id, unchanged
 * @throws {OdekError} `USAGE` stating the rule and the rejected value.
 *
 * @example Accept a name, refuse a path
 * ```ts
 * import { validateSessionId } from "./validate_session_id.ts";
 * validateSessionId("release-notes_2.1");
 * let refused = false;
 * try { validateSessionId("../etc"); } catch { refused = true; }
 * if (!refused) throw new Error("accepted a path");
 * ```
 */
export function validateSessionId(id: string): string {
  if (!SESSION_ID.test(id)) {
    throw new OdekError(
      "USAGE",
      `Invalid session name ${JSON.stringify(id)}: a session name is 1 to 64 characters, ` +
        `starts with a letter or digit and contains only letters, digits, ".", "_" and "-". ` +
        `Choose a name like "fix-login-bug".`,
    );
  }
  return id;
}
