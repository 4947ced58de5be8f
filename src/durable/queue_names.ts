/**
 * The names workers and clients of one queue share.
 *
 * @module
 */

/** The engine's application name (scopes odek's workflows and queues in the database). */
export const DURABLE_APP = "odek";

/**
 * The application version every worker and client uses: a recovered workflow is only run by an
 * executor of the same version, and any worker may take over any other's runs.
 */
export const DURABLE_VERSION = "odek-run-v1";

/** The workflow a queued run is. */
export const RUN_WORKFLOW = "odek.run";

/** The default queue. */
export const DEFAULT_QUEUE = "odek-runs";
