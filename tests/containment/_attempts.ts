/**
 * The escape attempts of the containment suite, as data: each is one tool call built from the
 * fixture's paths. The suite runs the whole table twice (a forced `read` verdict, then the real
 * classifier with an approver that approves every ask) and checks the same containment after
 * each attempt (see `_check.ts`). Every adversarial string lives here and only ever runs inside
 * a sandbox, against the fixture's canaries and sentinels.
 *
 * @module
 */
import type { Attempt } from "./_attempt.ts";
import { EXEC_ATTEMPTS } from "./_attempts_exec.ts";
import { PATH_ATTEMPTS } from "./_attempts_paths.ts";
import { HOST_ATTEMPTS } from "./_attempts_host.ts";

export type { Attempt } from "./_attempt.ts";

/** The whole table (at least 40 attempts): paths first, then programs. */
export const ATTEMPTS: readonly Attempt[] = [...PATH_ATTEMPTS, ...EXEC_ATTEMPTS, ...HOST_ATTEMPTS];
