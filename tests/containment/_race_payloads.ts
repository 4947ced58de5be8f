/**
 * The commands of issue 12's tests (test data, design §8.9): each aims only at the canary
 * `id_rsa` and the `PWNED` marker of the test's own scratch folder (relative to the workspace or
 * to a granted target the test names), or at the sandbox's own `/dev` and `/dev/shm`.
 *
 * @module
 */

/** Read the home's canary key and plant a marker, both relative to the workspace. */
export const READ_KEY_AND_MARK = "cat .ssh/id_rsa; touch PWNED";

/** Write a marker into the read-only added directory `a/b` of the workspace. */
export const WRITE_INTO_READ_ONLY = "touch a/b/PWNED";

/**
 * Read the canary key and plant a marker through a granted target directory.
 *
 * @param target the granted directory (absolute, in the test's scratch folder)
 * @returns the command
 */
export function readKeyThrough(target: string): string {
  return `cat ${target}/.ssh/id_rsa; touch ${target}/PWNED`;
}

/** Try to write 2 GB into the sandbox's own `/dev/shm`, then report the size that landed. */
export const FILL_DEV_SHM =
  "head -c 2000000000 /dev/zero > /dev/shm/fill; echo status=$?; stat -c size=%s /dev/shm/fill";

/** Try to create a file in the sandbox's `/dev`, and write to `/dev/null`. */
export const WRITE_DEV = "touch /dev/odek-probe; echo x > /dev/null && echo null-ok";
