/** Who runs a session's live runtime, as this node sees it. */
export interface OwnerLookup {
  /** The id of another live node holding the session's lease, or undefined (unleased, expired, or held here). */
  ownerElsewhere(sessionId: string): Promise<string | undefined>;
}

/** Until the session leases are wired: no session is ever owned by another node, so every command runs here. */
export const ownedHereAlways: OwnerLookup = {
  ownerElsewhere: async () => undefined,
};
