/**
 * A serve run's warnings on its record (private to `serve/`): the session host's and the run's at
 * the start, then those the host's parts add once they are up — the parts start as the run's
 * first model request leaves (docs/runtime.md, "What a host starts later"), so a record saved at
 * the start lacks them. The page and `GET /api/runs/{key}` show them (docs/serve.md).
 *
 * @module
 */
import type { Run } from "../runtime/run.ts";
import type { SessionHost } from "../runtime/session_host.ts";
import type { ServeRunRecord } from "./run_records.ts";

/**
 * Put the warnings so far on `record`, and follow the run until the host's parts are up to add
 * theirs, calling `changed` when that added any (the caller saves the record).
 *
 * @param record the run's record (its `warnings` is set: absent while there are none)
 * @param host the run's session host
 * @param run the run (its events say when the parts have started)
 * @param changed told when the parts' warnings were added after the start
 * @returns a function that puts the warnings as they are now on `record` (at the run's end)
 *
 * @example Warnings at the start of a run
 * ```ts
 * import { followRunWarnings } from "./_run_warnings.ts";
 * const record: { warnings?: string[] } = {};
 * const host = { warnings: ["no egress proxy"], whenReady: () => Promise.resolve() };
 * const run = { warnings: [], events: (async function* () {})() };
 * followRunWarnings(record, host, run, () => {});
 * if (record.warnings?.[0] !== "no egress proxy") throw new Error(String(record.warnings));
 * ```
 */
export function followRunWarnings(
  record: Pick<ServeRunRecord, "warnings">,
  host: Pick<SessionHost, "warnings" | "whenReady">,
  run: Pick<Run, "warnings" | "events">,
  changed: () => void,
): () => void {
  const note = (): boolean => {
    const all = [...host.warnings, ...run.warnings];
    if (all.length === (record.warnings?.length ?? 0)) return false;
    record.warnings = all;
    return true;
  };
  note();
  void (async () => {
    try {
      for await (const _event of run.events) {
        const up = host.whenReady();
        if (up === undefined) continue;
        await up.then(() => note() && changed(), () => {});
        return;
      }
    } catch {
      // The run's stream ended with the run: its end notes what is left.
    }
  })();
  return () => void note();
}
