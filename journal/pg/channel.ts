/** The channel every journal commit notifies (payload: the highest position it wrote): journal/pg/follower.ts listens. */
export const COMMIT_CHANNEL = 'svc_code_journal';
