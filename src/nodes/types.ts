/** Who runs a session's live runtime, as this node sees it. */
export interface OwnerLookup {
  /** The id of another live node holding the session's lease, or undefined (unleased, expired, or held here). */
  ownerElsewhere(sessionId: string): Promise<string | undefined>;
}

/**
 * Whether any other node shares this journal now (docs/scale-out.md "Streaming across nodes"): the volatile relay
 * sends only while one does, and tells when it hears from one (a node that just started, before its row is read).
 */
export interface Peers {
  othersAlive(): boolean;
  /** A message from another node arrived: count the others alive at once, for at least the TTL. */
  heardFromOther(): void;
}
