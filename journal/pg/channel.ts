/** The channel every journal commit notifies (no payload: a follower reads past the last position it saw): journal/pg/follower.ts listens. */
export const COMMIT_CHANNEL = 'svc_code_journal';
