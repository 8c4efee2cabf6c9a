/** Who runs a session's live runtime, as this node sees it. */
export interface OwnerLookup {
  /** The id of another live node holding the session's lease, or undefined (unleased, expired, or held here). */
  ownerElsewhere(sessionId: string): Promise<string | undefined>;
}
